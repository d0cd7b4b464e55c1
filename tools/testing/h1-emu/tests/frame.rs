//! The emulator over a stand-in of /dev/hantro-h1-emu: a Vec-backed register
//! window and a Vec-backed "physical RAM", frames programmed as the driver does.

use clap::Parser;
use hantro_h1_emu::chardev::{H1EMU_DMA_BASE, REG_WINDOW_LEN};
use hantro_h1_emu::cli::Args;
use hantro_h1_emu::memory::{PhysMap, PhysMemory, PAGE, WINDOW};
use hantro_h1_emu::{parse_fault_at, Device, Emulator, FaultPlan, Outcome};
use hantro_h1_model::fault::{self, Fault};
use hantro_h1_model::regs::*;
use hantro_h1_model::{BusError, Memory, H1};
use std::io;
use std::ptr::NonNull;

/// Physical RAM of the fake: from 16 MiB, 2 MiB and 3 pages, so its last
/// window is not all RAM (pages mapped one by one there).
const BASE: u32 = 0x0100_0000;
const RAM_LEN: usize = (2 << 20) | (3 * PAGE as usize);

const W: usize = 48;
const H: usize = 40;
const MW: usize = W.div_ceil(16);
const MH: usize = H.div_ceil(16);
const FRAME_LEN: usize = W * H * 3 / 2;

/// Bus addresses of the buffers a driver would allocate.
mod addr {
    use super::*;
    /// Straddles the first window boundary.
    pub const INPUT: u32 = BASE + (1 << 20) - 1024;
    pub const REC: [(u32, u32); 2] = [
        (BASE + 0x1000, BASE + 0x4000),
        (BASE + 0x8000, BASE + 0xc000),
    ];
    pub const CABAC: u32 = BASE + 0x2_0000;
    /// In the last, partial window.
    pub const OUTPUT: u32 = BASE + (2 << 20);
    pub const OUTPUT_LEN: u32 = 8192;
    pub const NAL_TABLE: u32 = OUTPUT + OUTPUT_LEN;
}

/// RAM the fake maps: its bytes live as long as it does.
struct FakeRam {
    ptr: *mut u8,
    maps: std::cell::Cell<usize>,
}

impl FakeRam {
    fn new(bytes: &[u8]) -> Self {
        let b: Box<[u8]> = bytes.into();
        FakeRam {
            ptr: Box::into_raw(b).cast(),
            maps: Default::default(),
        }
    }
}

impl Drop for FakeRam {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from Box::into_raw of a RAM_LEN-byte slice.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, RAM_LEN)) });
    }
}

// SAFETY: pointers into the allocation, which lives as long as the mapper;
// one physical address always gives the same host address.
unsafe impl PhysMap for FakeRam {
    fn map(&self, phys: u64, len: usize) -> Option<NonNull<u8>> {
        assert!(phys.is_multiple_of(PAGE) && (len as u64).is_multiple_of(PAGE));
        self.maps.set(self.maps.get() + 1);
        let off = phys.checked_sub(u64::from(BASE))?;
        if off + len as u64 > RAM_LEN as u64 {
            return None;
        }
        // SAFETY: in bounds, checked above.
        NonNull::new(unsafe { self.ptr.add(off as usize) })
    }
}

/// What the hardware side did, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Event {
    Write(usize, u32),
    Irq,
}

/// The stand-in of /dev/hantro-h1-emu.
struct FakeDevice {
    window: Vec<u32>,
    mem: PhysMemory<FakeRam>,
    events: Vec<Event>,
    /// The driver resets the core (ENC_CTRL = 0) while the frame runs.
    reset_during_run: bool,
}

impl FakeDevice {
    fn new(ram: &[u8]) -> Self {
        FakeDevice {
            window: vec![0; 1024],
            mem: PhysMemory::new(FakeRam::new(ram)),
            events: Vec::new(),
            reset_during_run: false,
        }
    }

    /// A write of the driver (not an event of the hardware side).
    fn driver_write(&mut self, off: usize, v: u32) {
        self.window[off / 4] = v;
    }

    fn reg(&self, off: usize) -> u32 {
        self.window[off / 4]
    }

    fn ram(&self) -> Vec<u8> {
        let mut v = vec![0; RAM_LEN];
        self.mem.read(BASE, &mut v).unwrap();
        v
    }

    fn irqs(&self) -> usize {
        self.events.iter().filter(|e| **e == Event::Irq).count()
    }
}

impl Device for FakeDevice {
    fn read_reg(&self, off: usize) -> u32 {
        self.window[off / 4]
    }

    fn write_reg(&mut self, off: usize, val: u32) {
        self.window[off / 4] = val;
        self.events.push(Event::Write(off, val));
    }

    fn memory(&mut self) -> &mut dyn Memory {
        if self.reset_during_run {
            self.window[ENC_CTRL / 4] = 0;
        }
        &mut self.mem
    }

    fn raise_irq(&mut self) -> io::Result<()> {
        self.events.push(Event::Irq);
        Ok(())
    }
}

/// Physical RAM for running the model directly: one flat buffer.
#[derive(Clone)]
struct FlatRam(Vec<u8>);

impl FlatRam {
    fn range(&self, addr: u32, len: usize) -> Result<std::ops::Range<usize>, BusError> {
        let off = addr.checked_sub(BASE).ok_or(BusError { addr })? as usize;
        if off + len > self.0.len() {
            return Err(BusError { addr });
        }
        Ok(off..off + len)
    }
}

impl Memory for FlatRam {
    fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), BusError> {
        out.copy_from_slice(&self.0[self.range(addr, out.len())?]);
        Ok(())
    }

    fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusError> {
        let r = self.range(addr, data.len())?;
        self.0[r].copy_from_slice(data);
        Ok(())
    }
}

/// A picture with texture and some motion from frame to frame, I420.
fn picture(frame: usize) -> Vec<u8> {
    let mut seed = 0x1234_5678u32 ^ frame as u32;
    let mut noise = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 28) as usize
    };
    let mut p = Vec::with_capacity(FRAME_LEN);
    for y in 0..H {
        for x in 0..W {
            let xs = x + 2 * frame;
            p.push((xs * 5 + y * 3 + (xs * y) % 23 + noise()) as u8);
        }
    }
    for c in 0..2 {
        for y in 0..H / 2 {
            for x in 0..W / 2 {
                p.push((128 + c * 20 + x + y + noise()) as u8);
            }
        }
    }
    p
}

/// The RAM before the first frame: the CABAC table as a driver fills it.
fn initial_ram() -> Vec<u8> {
    let mut ram = vec![0u8; RAM_LEN];
    let t = (addr::CABAC - BASE) as usize;
    for (i, states) in ram[t..t + CABAC_TABLE_SIZE]
        .chunks_mut(CABAC_TABLE_STRIDE)
        .enumerate()
    {
        h264enc::cabac_init::init_states(i % 2 == 0, 0, (i / 2) as u8, states).unwrap();
    }
    ram
}

/// The register writes of the driver for `frame` (IDR when 0), ENC_CTRL last,
/// as h1-model's test bench programs a frame.
fn program(frame: usize, cabac: bool) -> Vec<(usize, u32)> {
    let intra = frame == 0;
    let (cur, prev) = (addr::REC[frame % 2], addr::REC[(frame + 1) % 2]);
    let mut w = vec![
        (INTERRUPT, 0),
        (ADDR_IN_PLANE_0, addr::INPUT),
        (ADDR_IN_PLANE_1, addr::INPUT + (W * H) as u32),
        (ADDR_IN_PLANE_2, addr::INPUT + (W * H * 5 / 4) as u32),
        (ADDR_REC_LUMA, cur.0),
        (ADDR_REC_CHROMA, cur.1),
        (ADDR_REF_LUMA, prev.0),
        (ADDR_REF_CHROMA, prev.1),
        (ADDR_OUTPUT_STREAM, addr::OUTPUT),
        (ADDR_OUTPUT_CTRL, addr::NAL_TABLE),
        (STR_BUF_LIMIT, addr::OUTPUT_LEN),
        (ADDR_CABAC_TBL, addr::CABAC),
        // The header remainder: 2 bytes of an AUD.
        (STR_HDR_REM_MSB, 0x0910_0000),
        (STR_HDR_REM_LSB, 0),
        (RLC_CTRL, 16 << RLC_STR_OFFS_SHIFT),
        (
            IN_IMG_CTRL,
            ((W as u32) << IN_IMG_ROW_LEN_SHIFT)
                | ((((MW * 16 - W) / 4) as u32) << IN_IMG_OVRFLR_D4_SHIFT)
                | (((MH * 16 - H) as u32) << IN_IMG_OVRFLB_SHIFT)
                | (IN_FMT_YUV420P << IN_IMG_FMT_SHIFT),
        ),
        (ENC_CTRL0, 26 << CTRL0_INIT_QP_SHIFT),
        (ENC_CTRL1, frame as u32),
        (
            ENC_CTRL2,
            CTRL2_STREAM_MODE | CTRL2_INTER4X4_MODE | if cabac { CTRL2_ENTROPY_CABAC } else { 0 },
        ),
        (ENC_CTRL3, CTRL3_MUTIMV_EN),
        (QP_VAL, (28 << QP_VAL_LUM_SHIFT) | (51 << QP_VAL_MAX_SHIFT)),
        (H264_SLICE_EXT, 1 | (12 << EXT_LOG2_MAX_FRAME_NUM_M4_SHIFT)),
        (AXI_CTRL, AXI_CPU_BYTE_ORDER),
    ];
    let pic = if intra { PIC_INTRA } else { PIC_INTER };
    w.push((
        ENC_CTRL,
        ENC_CTRL_EN
            | (ENC_MODE_H264 << ENC_CTRL_MODE_SHIFT)
            | (pic << ENC_CTRL_PIC_SHIFT)
            | ((MW as u32) << ENC_CTRL_WIDTH_SHIFT)
            | ((MH as u32) << ENC_CTRL_HEIGHT_SHIFT)
            | ENC_CTRL_NAL_MODE
            | ENC_CTRL_TIMEOUT_EN,
    ));
    w
}

/// The fake device and, beside it, the same state for running the model directly.
struct Bench {
    dev: FakeDevice,
    regs: Registers,
    ram: FlatRam,
    h1: H1,
}

impl Bench {
    fn new() -> Self {
        let ram = initial_ram();
        Bench {
            dev: FakeDevice::new(&ram),
            regs: Registers::default(),
            ram: FlatRam(ram),
            h1: H1::default(),
        }
    }

    /// The driver's side of frame `frame`: the input picture, then the registers.
    fn program(&mut self, frame: usize, cabac: bool, extra: &[(usize, u32)]) {
        let pic = picture(frame);
        self.dev.mem.write(addr::INPUT, &pic).unwrap();
        self.ram.write(addr::INPUT, &pic).unwrap();
        let mut writes = program(frame, cabac);
        let en = writes.pop().unwrap();
        writes.extend_from_slice(extra);
        writes.push(en);
        for (off, v) in writes {
            self.dev.driver_write(off, v);
            self.regs.write(off, v);
        }
        self.dev.events.clear();
    }

    /// Runs the model directly on the reference state, with `fault`.
    fn reference(&mut self, fault: Fault) -> Option<hantro_h1_model::RunReport> {
        fault::run_with_fault(&mut self.h1, &mut self.regs, &mut self.ram, fault)
    }

    /// The device's window and RAM equal the reference's, byte for byte.
    fn assert_same(&self, what: &str) {
        for i in 0..NUM_REGS {
            assert_eq!(
                self.dev.window[i],
                self.regs.0[i],
                "{what}: register {:#x}",
                i * 4
            );
        }
        assert!(self.dev.ram() == self.ram.0, "{what}: RAM differs");
    }

    /// The driver's interrupt handler: acknowledge.
    fn ack(&mut self) {
        self.dev.driver_write(INTERRUPT, 0);
        self.regs.write(INTERRUPT, 0);
    }
}

/// The events of a completed frame: every other register, then ENC_CTRL,
/// then INTERRUPT, then one interrupt.
fn assert_completion(dev: &FakeDevice, irq: u32) {
    let ev = &dev.events;
    assert_eq!(dev.irqs(), 1, "exactly one interrupt");
    let n = ev.len();
    assert_eq!(ev[n - 1], Event::Irq, "the interrupt comes last");
    assert_eq!(
        ev[n - 2],
        Event::Write(INTERRUPT, irq),
        "INTERRUPT just before it"
    );
    assert!(
        matches!(ev[n - 3], Event::Write(ENC_CTRL, v) if v & ENC_CTRL_EN == 0),
        "ENC_CTRL, EN clear, before INTERRUPT: {:?}",
        ev[n - 3]
    );
    let mut written: Vec<usize> = ev[..n - 3]
        .iter()
        .map(|e| match e {
            Event::Write(off, _) if *off != ENC_CTRL && *off != INTERRUPT => *off,
            e => panic!("unexpected {e:?} before ENC_CTRL"),
        })
        .collect();
    written.sort_unstable();
    written.dedup();
    assert_eq!(
        written.len(),
        NUM_REGS - 2,
        "every other register written back"
    );
}

#[test]
fn frames_over_the_fake_device_are_the_models_byte_for_byte() {
    for cabac in [false, true] {
        let mut b = Bench::new();
        let mut emu = Emulator::default();
        assert_eq!(
            emu.step(&mut b.dev).unwrap(),
            None,
            "EN clear: nothing to do"
        );
        for frame in 0..2 {
            let what = format!("cabac {cabac}, frame {frame}");
            b.program(frame, cabac, &[]);
            let f = emu.step(&mut b.dev).unwrap().expect("a frame");
            let rep = b.reference(Fault::None).unwrap();
            assert_eq!(f.index, frame as u64);
            assert_eq!((f.width_mbs, f.height_mbs), (MW as u32, MH as u32));
            assert_eq!(f.fault, Fault::None);
            let irq = b.dev.reg(INTERRUPT);
            assert_eq!(irq, IRQ_BIT | IRQ_FRAME_RDY, "{what}");
            assert_eq!(f.outcome, Outcome::Interrupt(irq));
            assert_eq!(b.dev.reg(ENC_CTRL) & ENC_CTRL_EN, 0, "{what}: EN cleared");
            assert_completion(&b.dev, irq);
            // The stream: the header remainder (2 bytes) then the slices.
            let stream_bytes: u32 = rep.nal_sizes.iter().sum();
            assert!(stream_bytes > 16, "{what}: {stream_bytes}");
            assert_eq!(f.stream_bytes, stream_bytes);
            assert_eq!(b.dev.reg(STR_BUF_LIMIT), stream_bytes * 8);
            let mut out = vec![0; 2 + stream_bytes as usize];
            b.dev.mem.read(addr::OUTPUT, &mut out).unwrap();
            let mut expect = vec![0; out.len()];
            b.ram.read(addr::OUTPUT, &mut expect).unwrap();
            assert_eq!(out, expect, "{what}: stream bytes");
            assert_eq!(&out[..6], &[0x09, 0x10, 0, 0, 0, 1]);
            b.assert_same(&what);
            // EN is clear now: the next polls do nothing.
            b.dev.events.clear();
            assert_eq!(emu.step(&mut b.dev).unwrap(), None);
            assert!(b.dev.events.is_empty());
            b.ack();
        }
        assert_eq!(emu.frames(), 2);
        // The pieces of RAM mapped: the two full windows, and pages of the partial one.
        let (windows, pages) = b.dev.mem.mapped();
        assert_eq!(windows, 2);
        assert!((1..=3).contains(&pages), "{pages} pages");
    }
}

#[test]
fn a_frame_without_the_cpu_byte_order_is_refused() {
    // The swaps the driver must program (AXI_CTRL); the IRQ handler clears them.
    for axi in [0, AXI_CPU_BYTE_ORDER & !AXI_OUTPUT_SWAP8] {
        let mut b = Bench::new();
        let mut emu = Emulator::default();
        b.program(0, false, &[(AXI_CTRL, axi)]);
        let f = emu.step(&mut b.dev).unwrap().unwrap();
        let irq = b.dev.reg(INTERRUPT);
        assert_eq!(irq, IRQ_BIT | IRQ_CONFIG_ERROR, "AXI_CTRL {axi:#x}");
        assert_eq!(f.stream_bytes, 0);
    }
}

#[test]
fn an_access_outside_ram_is_a_bus_error() {
    let mut b = Bench::new();
    let mut emu = Emulator::default();
    // The output stream right past the end of RAM.
    let past = BASE + RAM_LEN as u32;
    b.program(0, false, &[(ADDR_OUTPUT_STREAM, past)]);
    let f = emu.step(&mut b.dev).unwrap().unwrap();
    let irq = b.dev.reg(INTERRUPT);
    assert_eq!(irq, IRQ_BIT | IRQ_BUS_ERROR);
    assert_eq!(f.outcome, Outcome::Interrupt(irq));
    assert_eq!(f.stream_bytes, 0);
    assert_eq!(b.dev.reg(ENC_CTRL) & ENC_CTRL_EN, 0);
    assert_completion(&b.dev, irq);
    b.reference(Fault::None).unwrap();
    b.assert_same("bus error");

    // The input below RAM.
    b.ack();
    b.program(1, false, &[(ADDR_IN_PLANE_0, BASE - 64)]);
    emu.step(&mut b.dev).unwrap().unwrap();
    assert_eq!(b.dev.reg(INTERRUPT), IRQ_BIT | IRQ_BUS_ERROR);

    // The first address that is not RAM is the one reported.
    let mut two = [0u8; 2];
    assert_eq!(
        b.dev.mem.read(past - 1, &mut two),
        Err(BusError { addr: past })
    );
    assert_eq!(
        b.dev.mem.read(BASE - 1, &mut two),
        Err(BusError { addr: BASE - 1 })
    );
    assert_eq!(
        b.dev.mem.write(u32::MAX, &two),
        Err(BusError { addr: u32::MAX })
    );
    // An access that spans windows and pages is one access.
    let span = BASE + (2 << 20) - 5;
    b.dev
        .mem
        .write(span, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        .unwrap();
    let mut back = [0u8; 10];
    b.dev.mem.read(span, &mut back).unwrap();
    assert_eq!(back, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert_eq!(
        b.dev
            .mem
            .read(past - PAGE as u32 - 3, &mut [0; PAGE as usize + 2]),
        Ok(())
    );
    // A window or page that failed is not asked for again.
    let maps = b.dev.mem.mapper().maps.get();
    let beyond = past + 2 * PAGE as u32 + 8;
    assert_eq!(
        b.dev.mem.read(beyond, &mut two),
        Err(BusError { addr: beyond })
    );
    assert_eq!(
        b.dev.mem.mapper().maps.get(),
        maps + 1,
        "one new page tried"
    );
    assert_eq!(
        b.dev.mem.read(beyond, &mut two),
        Err(BusError { addr: beyond })
    );
    assert_eq!(b.dev.mem.mapper().maps.get(), maps + 1, "and only once");
    assert_eq!(WINDOW % PAGE, 0);
}

#[test]
fn faults_from_the_command_line_take_effect_at_their_frames() {
    let args = Args::try_parse_from([
        "h1-emu",
        "--fault-at",
        "1:timeout,2:bad-qp-sum",
        "--fault-at",
        "4:buffer-full",
        "--frames",
        "6",
        "--verbose",
    ])
    .unwrap();
    assert_eq!(args.device.to_str(), Some("/dev/hantro-h1-emu"));
    assert_eq!((args.frames, args.verbose), (Some(6), true));
    let plan = args.fault_plan().unwrap();
    assert_eq!(
        plan,
        FaultPlan::new([
            (1, Fault::Timeout),
            (2, Fault::BadQpSum),
            (4, Fault::BufferFull)
        ])
        .unwrap()
    );

    let mut b = Bench::new();
    let mut emu = Emulator::new(plan);
    let step = |b: &mut Bench, emu: &mut Emulator, frame: usize| {
        b.ack();
        b.program(frame, false, &[]);
        emu.step(&mut b.dev).unwrap().unwrap()
    };
    let f0 = step(&mut b, &mut emu, 0);
    assert_eq!((f0.index, f0.fault), (0, Fault::None));
    assert_eq!(b.dev.reg(INTERRUPT), IRQ_BIT | IRQ_FRAME_RDY);
    let normal_mad = b.dev.reg(MAD_CTRL);

    // Frame 1 hangs: no interrupt, nothing written but EN cleared.
    let ctrl = program(1, false).last().unwrap().1;
    let f1 = step(&mut b, &mut emu, 1);
    assert_eq!(
        (f1.index, f1.fault, f1.outcome, f1.stream_bytes),
        (1, Fault::Timeout, Outcome::Hung, 0)
    );
    assert_eq!(
        b.dev.events,
        [Event::Write(ENC_CTRL, ctrl & !ENC_CTRL_EN)],
        "only EN cleared, no interrupt"
    );
    assert!(f1.to_string().contains("no interrupt (hung)"), "{f1}");
    b.dev.events.clear();
    for _ in 0..3 {
        assert_eq!(emu.step(&mut b.dev).unwrap(), None);
    }
    assert!(b.dev.events.is_empty());

    let f2 = step(&mut b, &mut emu, 1);
    assert_eq!((f2.index, f2.fault), (2, Fault::BadQpSum));
    assert_eq!(b.dev.reg(INTERRUPT), IRQ_BIT | IRQ_FRAME_RDY);
    assert_eq!(b.dev.reg(MAD_CTRL), 0x1f_ffff);
    assert_completion(&b.dev, IRQ_BIT | IRQ_FRAME_RDY);

    let f3 = step(&mut b, &mut emu, 2);
    assert_eq!((f3.index, f3.fault), (3, Fault::None));
    assert_ne!(b.dev.reg(MAD_CTRL), 0x1f_ffff);
    assert_eq!(
        b.dev.reg(MAD_CTRL) & !MAD_QP_SUM_DIV2_MASK,
        normal_mad & !MAD_QP_SUM_DIV2_MASK
    );

    let f4 = step(&mut b, &mut emu, 3);
    assert_eq!((f4.index, f4.fault), (4, Fault::BufferFull));
    assert_eq!(b.dev.reg(INTERRUPT), IRQ_BIT | IRQ_BUFFER_FULL);
    assert_eq!(f4.outcome, Outcome::Interrupt(IRQ_BIT | IRQ_BUFFER_FULL));
    assert_completion(&b.dev, IRQ_BIT | IRQ_BUFFER_FULL);

    let f5 = step(&mut b, &mut emu, 4);
    assert_eq!((f5.index, f5.fault), (5, Fault::None));
    assert_eq!(b.dev.reg(INTERRUPT), IRQ_BIT | IRQ_FRAME_RDY);
    assert_eq!(emu.frames(), 6);
    assert!(f5
        .to_string()
        .starts_with("frame 5: 3x3 = 9 MBs, interrupt 0x5, "));
    assert!(f4.to_string().ends_with(", fault buffer-full"), "{f4}");
}

#[test]
fn bad_fault_options_are_refused() {
    assert_eq!(
        parse_fault_at("7:corrupt-slice-header"),
        Ok((7, Fault::CorruptSliceHeader))
    );
    assert_eq!(
        parse_fault_at(" 3 : bad-checkpoints"),
        Ok((3, Fault::BadCheckpoints))
    );
    for bad in [
        "timeout",
        "x:timeout",
        "-1:timeout",
        "1:Timeout",
        "1:stuck",
        "",
    ] {
        assert!(parse_fault_at(bad).is_err(), "{bad}");
    }
    assert!(Args::try_parse_from(["h1-emu", "--fault-at", "1:timeout,2:oops"]).is_err());
    let twice = Args::try_parse_from(["h1-emu", "--fault-at", "1:timeout,1:bad-qp-sum"]).unwrap();
    assert!(twice
        .fault_plan()
        .unwrap_err()
        .contains("two faults for frame 1"));
}

#[test]
fn a_reset_while_the_frame_runs_drops_it() {
    let mut b = Bench::new();
    let mut emu = Emulator::default();
    b.program(0, false, &[]);
    b.dev.reset_during_run = true;
    let f = emu.step(&mut b.dev).unwrap().unwrap();
    assert_eq!(f.outcome, Outcome::Reset);
    assert!(
        b.dev.events.is_empty(),
        "nothing written back, no interrupt"
    );
    b.dev.reset_during_run = false;
    b.program(0, false, &[]);
    let f = emu.step(&mut b.dev).unwrap().unwrap();
    assert_eq!(
        (f.index, f.outcome),
        (1, Outcome::Interrupt(IRQ_BIT | IRQ_FRAME_RDY))
    );
}

#[test]
fn a_device_that_cannot_be_opened_is_an_error_with_its_cause() {
    let e = hantro_h1_emu::chardev::EmuDevice::open("/nonexistent/hantro-h1-emu".as_ref())
        .err()
        .unwrap();
    let msg = e.to_string();
    assert!(
        msg.contains("cannot open /nonexistent/hantro-h1-emu"),
        "{msg}"
    );
    assert!(msg.contains("No such file"), "{msg}");
    // A file that is no such device cannot map a register window.
    let e = hantro_h1_emu::chardev::EmuDevice::open("/dev/null".as_ref())
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("cannot map the register window"),
        "{e}"
    );
}

/// A sparse regular file laid out as /dev/hantro-h1-emu: the register window
/// at offset 0, the RAM at H1EMU_DMA_BASE + its physical address. It maps
/// like the device; only the interrupt ioctl fails (ENOTTY).
struct SparseDevice(std::path::PathBuf);

impl SparseDevice {
    fn new(tag: &str, b: &Bench) -> Self {
        use std::os::unix::fs::FileExt;
        let path = std::env::temp_dir().join(format!("h1-emu-{tag}-{}", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(H1EMU_DMA_BASE + u64::from(BASE) + RAM_LEN as u64)
            .unwrap();
        let window: Vec<u8> = b.dev.window.iter().flat_map(|r| r.to_le_bytes()).collect();
        f.write_all_at(&window, 0).unwrap();
        f.write_all_at(&b.ram.0, H1EMU_DMA_BASE + u64::from(BASE))
            .unwrap();
        SparseDevice(path)
    }

    fn regs(&self) -> Vec<u32> {
        let mut w = vec![0u8; REG_WINDOW_LEN];
        std::os::unix::fs::FileExt::read_exact_at(&self.file(), &mut w, 0).unwrap();
        w.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn ram(&self) -> Vec<u8> {
        let mut r = vec![0u8; RAM_LEN];
        std::os::unix::fs::FileExt::read_exact_at(
            &self.file(),
            &mut r,
            H1EMU_DMA_BASE + u64::from(BASE),
        )
        .unwrap();
        r
    }

    fn file(&self) -> std::fs::File {
        std::fs::File::open(&self.0).unwrap()
    }
}

impl Drop for SparseDevice {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn the_program_runs_a_frame_through_the_device_mappings() {
    let mut b = Bench::new();
    b.program(0, true, &[]);
    let dev = SparseDevice::new("frame", &b);
    b.reference(Fault::None).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_h1-emu"))
        .arg("--device")
        .arg(&dev.0)
        .args(["--frames", "1", "--verbose"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The frame completed; raising the interrupt is what a file cannot do.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("frame 0: H1EMU_IOC_IRQ: Inappropriate ioctl"),
        "{stderr}"
    );
    let regs = dev.regs();
    assert_eq!(regs[INTERRUPT / 4], IRQ_BIT | IRQ_FRAME_RDY);
    assert_eq!(regs[ENC_CTRL / 4] & ENC_CTRL_EN, 0);
    assert_eq!(&regs[..NUM_REGS], &b.regs.0[..], "registers");
    assert!(regs[NUM_REGS..].iter().all(|&r| r == 0));
    assert!(dev.ram() == b.ram.0, "RAM, stream included, as the model's");
}

#[test]
fn the_program_exits_cleanly_on_sigterm_and_fails_without_a_device() {
    let b = Bench::new();
    let dev = SparseDevice::new("idle", &b);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_h1-emu"))
        .arg("--device")
        .arg(&dev.0)
        .arg("--verbose")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "polls until told to stop"
    );
    // SAFETY: signals the child we spawned, by its pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("0 frames, exiting"), "{stderr}");

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_h1-emu"))
        .args(["--device", "/nonexistent/h1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("cannot open /nonexistent/h1: No such file"),
        "{stderr}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_h1-emu"))
        .args(["--fault-at", "1:timeout,1:bad-qp-sum"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("two faults for frame 1"));
}
