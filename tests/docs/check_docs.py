#!/usr/bin/env python3
"""docs/ holds user documents: at most 60 files, no script or source among them; every
BENCHMARKS section names the command that reproduces it (a `scripts/...` or `workflow/...`
in backticks); every number in the README's table is one BENCHMARKS gives. Usage:
check_docs.py REPO_ROOT (exit 1 with one line per fault)."""
import pathlib
import re
import sys

MAX_FILES = 60
CODE = {".sh", ".py", ".c", ".h", ".cpp", ".hpp", ".cu", ".cuh"}
# A README figure: a number or range with its unit, e.g. 3.2-3.4x, 466.5 s, 0.53x.
FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?(?:x| s\b)")


def faults(root):
    docs = root / "docs"
    files = [p for p in docs.rglob("*") if p.is_file()]
    if len(files) > MAX_FILES:
        yield f"docs/ holds {len(files)} files (at most {MAX_FILES}: raw output goes in issue notes)"
    for p in files:
        if p.suffix in CODE:
            yield f"{p.relative_to(root)}: a script or source under docs/ (experiments are scripts/bench_* stages)"
    bench = (docs / "BENCHMARKS.md").read_text()
    prose = re.sub(r"\s+", " ", bench.replace("**", ""))  # a figure may be bold or cross a line
    for section in re.split(r"\n(?=#{2,3} )", bench)[1:]:
        title, _, body = section.partition("\n")
        if body.strip() and not re.search(r"`[^`]*(scripts/|workflow/)[^`]*`", body):
            yield f"BENCHMARKS '{title.strip('# ')}': no command (a scripts/ or workflow/ line in backticks)"
    for line in (root / "README.md").read_text().splitlines():
        if not line.startswith("| `"):
            continue
        for figure in FIGURE.findall(line.split("|")[-2]):
            if figure not in prose:
                yield f"README's '{figure}' ({line.split('|')[1].strip()}) is not in docs/BENCHMARKS.md"


def main():
    found = list(faults(pathlib.Path(sys.argv[1])))
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
