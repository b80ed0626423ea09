#!/usr/bin/env python3
"""check_links.py ROOT: every relative link of ROOT/README.md and ROOT/docs/**/*.md (outside code)
names a file or folder that exists, and its #anchor a heading of that Markdown file (GitHub's
rule: lower case, punctuation dropped, spaces to '-', repeats numbered -1, -2, ...); and no line
(code included) names things outside the project (the development notes' sections, a local
binaries folder, another engine): a reader has none of them. Prints each broken link or outside
word as FILE:LINE: and exits 1 when there is one."""
import os
import re
import sys

# Words that name things outside the project (issue 31 item 9).
OUTSIDE = re.compile(r'NOTES \u00a7|NOTES\.md|\.devbin\b|reference engine', re.IGNORECASE)

LINK = re.compile(r'!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')


def strip_code(lines):
    """The lines with fenced blocks blanked and inline code removed."""
    out, fence = [], None
    for line in lines:
        m = re.match(r'\s*(```+|~~~+)', line)
        if m:
            mark = m.group(1)[:3]
            fence = None if fence == mark else (fence or mark)
            out.append('')
            continue
        out.append('' if fence else re.sub(r'`+[^`]*`+', '', line))
    return out


def heading_anchors(path):
    """Anchors from the raw headings (inline code kept as text)."""
    seen, found = {}, set()
    fence = None
    with open(path, encoding='utf-8') as f:
        for line in f.read().split('\n'):
            m = re.match(r'\s*(```+|~~~+)', line)
            if m:
                mark = m.group(1)[:3]
                fence = None if fence == mark else (fence or mark)
                continue
            if fence:
                continue
            m = re.match(r'\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$', line)
            if not m:
                continue
            text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', m.group(1)).replace('`', '')
            slug = re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else '%s-%d' % (slug, n))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    files = [os.path.join(root, 'README.md')]
    for d, _, names in os.walk(os.path.join(root, 'docs')):
        files += [os.path.join(d, n) for n in sorted(names) if n.endswith('.md')]
    bad = 0
    for path in files:
        with open(path, encoding='utf-8') as f:
            raw = f.read().split('\n')
        for no, line in enumerate(raw, 1):
            m = OUTSIDE.search(line)
            if m:
                print('%s:%d: names something outside the project: %s' %
                      (os.path.relpath(path, root), no, m.group(0)))
                bad += 1
        lines = strip_code(raw)
        for no, line in enumerate(lines, 1):
            for target in LINK.findall(line):
                if re.match(r'[a-z][a-z0-9+.-]*:', target):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                why = None
                if not os.path.exists(dest):
                    why = 'no such file'
                elif anchor and dest.endswith('.md') and anchor not in heading_anchors(dest):
                    why = 'no heading with the anchor #%s' % anchor
                if why:
                    print('%s:%d: broken link (%s): %s' % (os.path.relpath(path, root), no, target,
                                                           why))
                    bad += 1
    print('%d files, %d broken links or outside words' % (len(files), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
