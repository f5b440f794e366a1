#!/usr/bin/env python3
"""Checks that every source of a module includes only headers of the modules
it links (docs/ARCHITECTURE.md). The graph comes from CMake (cmake/layering.cmake):
one line per module, its folder first, then the folders it may use.

usage: check_layering.py SOURCE_DIR GRAPH_FILE
Prints each wrong-way include as FILE:LINE: ... and exits 1 when there is one."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    root, graph_file = sys.argv[1], sys.argv[2]
    allowed = {}
    with open(graph_file) as f:
        for line in f:
            parts = line.split()
            if parts:
                allowed[parts[0]] = set(parts)
    modules = sorted(allowed, key=len, reverse=True)

    def owner(path):
        # The module whose folder holds `path`: the longest folder that is a
        # prefix (codec/tier2/x.h belongs to codec/tier2, not codec).
        for m in modules:
            if path.startswith(m + "/"):
                return m
        return None

    errors, checked = [], 0
    for module in modules:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, module)):
            rel_dir = os.path.relpath(dirpath, root)
            # A subfolder that is a module of its own is checked as that one.
            dirnames[:] = [d for d in dirnames if os.path.join(rel_dir, d) not in allowed]
            for name in filenames:
                if not name.endswith((".h", ".cc", ".cu", ".cuh")):
                    continue
                rel = os.path.join(rel_dir, name)
                with open(os.path.join(root, rel), errors="replace") as f:
                    for number, text in enumerate(f, 1):
                        m = INCLUDE.match(text)
                        if not m:
                            continue
                        checked += 1
                        target = owner(m.group(1))
                        if target is not None and target not in allowed[module]:
                            errors.append(f"{rel}:{number}: {module} includes {m.group(1)} "
                                          f"of {target}, which it does not link")
    for e in errors:
        print(e)
    print(f"layering: {checked} includes in {len(modules)} modules checked, {len(errors)} wrong-way")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
