#!/usr/bin/env python3
"""Trunk post-build hook: moves the inline module script Trunk writes into index.html into a
file of its own (boot-<hash>.js), so the page needs no inline script and runs under
`script-src 'self' 'wasm-unsafe-eval'`. Trunk runs it with TRUNK_STAGING_DIR set."""

import hashlib
import os
import re
import sys

staging = os.environ.get("TRUNK_STAGING_DIR")
if not staging:
    sys.exit("externalize-loader: TRUNK_STAGING_DIR is not set (run it from Trunk)")
index = os.path.join(staging, "index.html")
with open(index, encoding="utf-8") as f:
    html = f.read()
pattern = re.compile(r'<script type="module">(.*?)</script>', re.S)
found = pattern.findall(html)
if len(found) != 1:
    sys.exit(f"externalize-loader: expected one inline module script in index.html, found {len(found)}")
body = found[0].strip() + "\n"
name = f"boot-{hashlib.sha256(body.encode()).hexdigest()[:16]}.js"
with open(os.path.join(staging, name), "w", encoding="utf-8") as f:
    f.write(body)
html = pattern.sub(f'<script type="module" src="./{name}"></script>', html)
with open(index, "w", encoding="utf-8") as f:
    f.write(html)
