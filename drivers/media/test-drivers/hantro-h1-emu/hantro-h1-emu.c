// SPDX-License-Identifier: GPL-2.0-only
/*
 * Emulated Hantro H1 video encoder, for testing the hantro driver on a
 * machine without one (a virtual machine).
 *
 * The module registers the platform device hantro binds to as the STM32MP25
 * video encoder: its MEM resource is a range of physical memory the kernel
 * was told to leave alone (memmap=1M$0x18000000), so hantro can ioremap it as
 * it would the silicon's registers, and its IRQ is a line of a simulated
 * interrupt chip. A userspace program plays the hardware through the misc
 * device /dev/hantro-h1-emu:
 *
 * - mmap() at offset 0 maps the register window (uncached);
 * - mmap() at offset HANTRO_H1_EMU_DMA_BASE + addr maps the RAM at physical
 *   (bus) address addr, so the program can read the buffers whose addresses
 *   the driver wrote into the registers and write the stream; there is no
 *   IOMMU on the machines this runs on, so bus addresses are physical;
 * - ioctl(HANTRO_H1_EMU_IOC_IRQ) raises the encoder's interrupt.
 *
 * Register writes are not trapped: the program polls the enable bit.
 */

#include <linux/bits.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/irq.h>
#include <linux/irq_sim.h>
#include <linux/irqdomain.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#define HANTRO_H1_EMU_DMA_BASE	BIT_ULL(40)
#define HANTRO_H1_EMU_IOC_IRQ	_IO('h', 0x01)

static unsigned long regs_phys = 0x18000000;
module_param(regs_phys, ulong, 0444);
MODULE_PARM_DESC(regs_phys, "physical address of the register window (reserved with memmap=)");

#define HANTRO_H1_EMU_REGS_SIZE	PAGE_SIZE

static struct {
	struct fwnode_handle *fwnode;
	struct irq_domain *domain;
	unsigned int virq;
	struct platform_device *pdev;
} emu;

static int hantro_h1_emu_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 phys;

	if (off == 0) {
		if (size > HANTRO_H1_EMU_REGS_SIZE)
			return -EINVAL;
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
		return remap_pfn_range(vma, vma->vm_start, regs_phys >> PAGE_SHIFT,
				       size, vma->vm_page_prot);
	}
	if (off < HANTRO_H1_EMU_DMA_BASE)
		return -EINVAL;
	phys = off - HANTRO_H1_EMU_DMA_BASE;
	/* Only RAM: that is where DMA buffers live. */
	if (region_intersects(phys, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_INTERSECTS)
		return -EINVAL;
	return remap_pfn_range(vma, vma->vm_start, phys >> PAGE_SHIFT, size,
			       vma->vm_page_prot);
}

static long hantro_h1_emu_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	if (cmd != HANTRO_H1_EMU_IOC_IRQ)
		return -ENOTTY;
	return irq_set_irqchip_state(emu.virq, IRQCHIP_STATE_PENDING, true);
}

static const struct file_operations hantro_h1_emu_fops = {
	.owner = THIS_MODULE,
	.mmap = hantro_h1_emu_mmap,
	.unlocked_ioctl = hantro_h1_emu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice hantro_h1_emu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hantro-h1-emu",
	.fops = &hantro_h1_emu_fops,
	.mode = 0600,
};

static int __init hantro_h1_emu_init(void)
{
	struct resource res[2] = {
		DEFINE_RES_MEM(regs_phys, HANTRO_H1_EMU_REGS_SIZE),
	};
	struct platform_device_info info = {
		.name = "stm32mp25-venc",
		.id = PLATFORM_DEVID_NONE,
		.res = res,
		.num_res = ARRAY_SIZE(res),
		.dma_mask = DMA_BIT_MASK(32),
	};
	int ret;

	if (region_intersects(regs_phys, HANTRO_H1_EMU_REGS_SIZE,
			      IORESOURCE_SYSTEM_RAM, IORES_DESC_NONE) !=
	    REGION_DISJOINT) {
		pr_err("hantro-h1-emu: %#lx is RAM: boot with memmap=1M$%#lx\n",
		       regs_phys, regs_phys);
		return -EINVAL;
	}

	emu.fwnode = irq_domain_alloc_named_fwnode("hantro-h1-emu");
	if (!emu.fwnode)
		return -ENOMEM;
	emu.domain = irq_domain_create_sim(emu.fwnode, 1);
	if (IS_ERR(emu.domain)) {
		ret = PTR_ERR(emu.domain);
		goto free_fwnode;
	}
	emu.virq = irq_create_mapping(emu.domain, 0);
	if (!emu.virq) {
		ret = -ENXIO;
		goto remove_domain;
	}
	res[1] = DEFINE_RES_IRQ_NAMED(emu.virq, "venc");

	ret = misc_register(&hantro_h1_emu_misc);
	if (ret)
		goto dispose_mapping;

	emu.pdev = platform_device_register_full(&info);
	if (IS_ERR(emu.pdev)) {
		ret = PTR_ERR(emu.pdev);
		goto deregister_misc;
	}
	return 0;

deregister_misc:
	misc_deregister(&hantro_h1_emu_misc);
dispose_mapping:
	irq_dispose_mapping(emu.virq);
remove_domain:
	irq_domain_remove_sim(emu.domain);
free_fwnode:
	irq_domain_free_fwnode(emu.fwnode);
	return ret;
}

static void __exit hantro_h1_emu_exit(void)
{
	platform_device_unregister(emu.pdev);
	misc_deregister(&hantro_h1_emu_misc);
	irq_dispose_mapping(emu.virq);
	irq_domain_remove_sim(emu.domain);
	irq_domain_free_fwnode(emu.fwnode);
}

module_init(hantro_h1_emu_init);
module_exit(hantro_h1_emu_exit);

MODULE_DESCRIPTION("Emulated Hantro H1 video encoder for tests");
MODULE_LICENSE("GPL");
