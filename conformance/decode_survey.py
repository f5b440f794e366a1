#!/usr/bin/python3
"""Decodes every shared malformed and conformance file with mallat and with
opj_decompress, and prints one line per file: whether each decoded it, and
mallat's first warning or its error.

  /usr/bin/python3 conformance/decode_survey.py [--mallat build/tools/mallat]
      [--data ../shared/testdata] [--ext ppm] [--strict]

The output format (--ext, default ppm) is what a new user would ask for, so
that files the decoder reads but the writer refuses show as failures too.
Exit status 0: every file ended cleanly (decoded, or refused with a message,
within the time limit); 1: some crashed or hung.
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

TIME_LIMIT_S = 60


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIME_LIMIT_S)
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def reason(text, decoded):
    """The error of a failed decode (the last line that is not a warning or
    a note), or the first warning of a decoded one."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if decoded:
        return next((l for l in lines if "warning:" in l), "")
    errors = [l for l in lines if "warning:" not in l and "note:" not in l]
    return errors[-1] if errors else (lines[-1] if lines else "")


def main():
    here = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mallat", default=str(here / "build/tools/mallat"))
    ap.add_argument("--data", default=str(here.parent / "shared/testdata"))
    ap.add_argument("--ext", default="ppm")
    ap.add_argument("--strict", action="store_true", help="pass --strict to mallat decode")
    args = ap.parse_args()
    data = pathlib.Path(args.data)
    files = sorted((data / "malformed").iterdir()) + sorted(
        f for f in (data / "conformance").iterdir() if f.suffix in (".j2k", ".jp2"))
    counts = {"both": 0, "mallat only": 0, "opj only": 0, "neither": 0}
    unclean = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            out = pathlib.Path(tmp) / ("m." + args.ext)
            cmd = [args.mallat, "decode", "-i", str(f), "-o", str(out)] + (["--strict"] if args.strict else [])
            m_rc, m_err = run(cmd)
            o_rc, _ = run(["opj_decompress", "-i", str(f), "-o", str(pathlib.Path(tmp) / ("o." + args.ext))])
            m_ok, o_ok = m_rc == 0, o_rc == 0
            # A clean end: decoded, or refused with exit status 1 and a message.
            if not (m_ok or (m_rc == 1 and m_err.strip())):
                unclean += 1
            key = "both" if m_ok and o_ok else "mallat only" if m_ok else "opj only" if o_ok else "neither"
            counts[key] += 1
            why = reason(m_err, m_ok).replace(str(f) + ": ", "").replace("mallat decode: ", "")
            print(f"{f.parent.name}/{f.name}\tmallat:{'ok' if m_ok else 'FAIL(' + str(m_rc) + ')'}"
                  f"\topj:{'ok' if o_ok else 'FAIL'}\t{why[:200]}")
    print("decoded by " + ", ".join(f"{k}: {v}" for k, v in counts.items()) + f"; unclean ends: {unclean}")
    return 1 if unclean else 0


if __name__ == "__main__":
    sys.exit(main())
