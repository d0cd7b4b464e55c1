# SPDX-License-Identifier: GPL-2.0-only
# Stand-alone Sphinx settings for the stateless H.264 encoder documentation of
# this overlay; in a kernel tree these pages build with Documentation/conf.py.
project = "V4L2 stateless H.264 encoding"
master_doc = "index"
exclude_patterns = ["_build"]
highlight_language = "c"
primary_domain = "c"
