# SPDX-License-Identifier: GPL-2.0-only
# Stand-alone Sphinx settings for the stateless H.264 encoder documentation of
# this overlay; in a kernel tree these pages build with Documentation/conf.py.
from docutils import nodes
from docutils.parsers.rst import Directive, directives

project = "V4L2 stateless H.264 encoding"
master_doc = "index"
exclude_patterns = ["_build"]
highlight_language = "c"
primary_domain = "c"


class KernelRender(Directive):
    """The kernel's ``kernel-render`` (Documentation/sphinx/kfigure.py), as
    the kernel build renders it without Graphviz: the DOT source as a
    literal block under its caption."""

    has_content = True
    required_arguments = 1
    option_spec = {"alt": directives.unchanged, "caption": directives.unchanged}

    def run(self):
        text = "\n".join(self.content)
        block = nodes.literal_block(text, text)
        caption = self.options.get("caption")
        if not caption:
            return [block]
        container = nodes.container("", classes=["kernel-render"])
        container += nodes.paragraph("", "", nodes.strong(caption, caption))
        container += block
        return [container]


def setup(app):
    app.add_directive("kernel-render", KernelRender)
