#!/usr/bin/env python3
"""Checks a page of vprof report and prints what it holds.

    html_check.py PAGE.html

Fails (exit 1, saying where) when the page is not well formed (every
element that is not void closed, in order; one <html>, <head>, <body>),
when it could reach the network (http:// or https:// in any src, in the
href of a <link>, in url(...) of a style; any <link> or <script src> at
all, or an @import), or when it is over 2 MB.  Otherwise prints, one line
each: the sections in order; per section its charts (<svg>), tables,
figures and findings; the number of rows carrying a rank.  The CLI test
compares that output exactly.  Standard library only.
"""
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
MAX_BYTES = 2 * 1024 * 1024
NET = re.compile(r"https?://", re.I)
URL = re.compile(r"url\(\s*['\"]?([^)'\"]*)", re.I)


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.sections = []        # [id, {kind: count}]
        self.counts = {}
        self.rank_rows = 0
        self.in_style = False
        self.in_svg = 0

    def where(self):
        line, col = self.getpos()
        return "line %d col %d" % (line, col + 1)

    def count(self, kind):
        if self.sections:
            d = self.sections[-1][1]
            d[kind] = d.get(kind, 0) + 1

    def attrs_check(self, tag, attrs):
        for name, value in attrs:
            value = value or ""
            if name == "src" and NET.search(value):
                self.errors.append("%s: <%s src=%s> reaches the network" % (self.where(), tag, value))
            if name == "href" and tag == "link":
                self.errors.append("%s: <link href=%s>: a page must not load a stylesheet" % (self.where(), value))
            if name == "style":
                self.style_check(value)
        if tag == "script" and any(n == "src" for n, _ in attrs):
            self.errors.append("%s: <script src>: scripts must be inline" % self.where())

    def style_check(self, text):
        for m in URL.finditer(text):
            if NET.search(m.group(1)) or m.group(1).strip():
                self.errors.append("%s: url(%s) in a style" % (self.where(), m.group(1)))
        if "@import" in text:
            self.errors.append("%s: @import in a style" % self.where())

    def handle_starttag(self, tag, attrs):
        self.attrs_check(tag, attrs)
        a = dict(attrs)
        if tag == "section":
            self.sections.append([a.get("id", "?"), {}])
        elif tag == "svg":
            if not self.in_svg:
                self.count("charts")
            self.in_svg += 1
        elif tag == "table":
            self.count("tables")
        elif tag == "figure":
            self.count("figures")
        elif tag == "ol" and a.get("class") == "findings":
            self.count("findings")
        elif tag == "tr" and "data-rank" in a:
            self.rank_rows += 1
        elif tag == "style":
            self.in_style = True
        if tag not in VOID:
            self.stack.append((tag, self.where()))

    def handle_startendtag(self, tag, attrs):
        # <rect .../> inside SVG: foreign elements may close themselves.
        self.attrs_check(tag, attrs)
        if tag not in VOID and not self.in_svg:
            self.errors.append("%s: <%s/> outside SVG" % (self.where(), tag))

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append("%s: </%s> of a void element" % (self.where(), tag))
            return
        if not self.stack:
            self.errors.append("%s: </%s> closes nothing" % (self.where(), tag))
            return
        open_tag, at = self.stack.pop()
        if open_tag != tag:
            self.errors.append("%s: </%s> closes <%s> of %s" % (self.where(), tag, open_tag, at))
        if tag == "style":
            self.in_style = False
        if tag == "svg":
            self.in_svg -= 1

    def handle_data(self, data):
        if self.in_style:
            self.style_check(data)

    def handle_pi(self, data):
        self.errors.append("%s: <?%s> in HTML" % (self.where(), data[:20]))


def main():
    raw = open(sys.argv[1], "rb").read()
    p = Page()
    if len(raw) > MAX_BYTES:
        p.errors.append("%d bytes: over 2 MB" % len(raw))
    text = raw.decode("utf-8")
    if not text.startswith("<!DOCTYPE html>"):
        p.errors.append("no <!DOCTYPE html> first")
    p.feed(text)
    p.close()
    for tag, at in p.stack:
        p.errors.append("<%s> of %s never closed" % (tag, at))
    for tag in ("html", "head", "body"):
        n = len(re.findall(r"<%s[\s>]" % tag, text))
        if n != 1:
            p.errors.append("%d <%s> elements" % (n, tag))
    if p.errors:
        for e in p.errors:
            print("html_check: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    print("sections: " + " ".join(s[0] for s in p.sections))
    for sid, d in p.sections:
        print("%s: %s" % (sid, ", ".join("%s %d" % (k, d[k]) for k in sorted(d))))
    print("rows with a rank: %d" % p.rank_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
