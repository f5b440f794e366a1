#!/usr/bin/env python3
"""List the marker segments of a JPEG 2000 codestream (or the jp2c box of a
JP2/JPH file): offset, name, length and the fields that profiles constrain
(SIZ, COD, COC, QCD, TLM, POC, SOT). For comparing two encoders' streams side
by side, e.g. a digital-cinema frame from mallat and from opj_compress:

    conformance/markers.py mallat.j2c opj.j2c
"""
import struct
import sys

NAMES = {0xFF4F: "SOC", 0xFF51: "SIZ", 0xFF52: "COD", 0xFF53: "COC", 0xFF5C: "QCD", 0xFF5D: "QCC",
         0xFF5E: "RGN", 0xFF5F: "POC", 0xFF55: "TLM", 0xFF57: "PLM", 0xFF58: "PLT", 0xFF60: "PPM",
         0xFF61: "PPT", 0xFF63: "CRG", 0xFF64: "COM", 0xFF50: "CAP", 0xFF59: "CPF", 0xFF90: "SOT",
         0xFF93: "SOD", 0xFFD9: "EOC"}
ORDERS = ["LRCP", "RLCP", "RPCL", "PCRL", "CPRL"]


def codestream(data):
    if data[:2] == b"\xff\x4f":
        return data
    pos = 0
    while pos + 8 <= len(data):  # JP2 boxes: find jp2c
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"jp2c":
            return data[pos + 8:pos + length if length else len(data)]
        pos += length if length else len(data)
    sys.exit("no codestream found")


def fields(name, seg):
    if name == "SIZ":
        rsiz, xs, ys, x0, y0, tw, th, tx0, ty0, n = struct.unpack(">HIIIIIIIIH", seg[:36])
        comps = [(seg[36 + 3 * i], seg[37 + 3 * i], seg[38 + 3 * i]) for i in range(n)]
        return (f"Rsiz=0x{rsiz:04X} size={xs}x{ys} origin={x0},{y0} tile={tw}x{th} tile0={tx0},{ty0} "
                f"components=" + " ".join(f"{(s & 0x7F) + 1}{'s' if s & 0x80 else 'u'}@{dx}x{dy}"
                                          for s, dx, dy in comps))
    if name == "COD":
        scod, order, layers, mct, levels, xcb, ycb, style, wavelet = struct.unpack(">BBHBBBBBB", seg[:10])
        precincts = [f"{2 ** (b & 15)}x{2 ** (b >> 4)}" for b in seg[10:]] if scod & 1 else []
        return (f"Scod=0x{scod:02X} {ORDERS[order] if order < 5 else order} layers={layers} mct={mct} "
                f"levels={levels} code-blocks={2 ** (xcb + 2)}x{2 ** (ycb + 2)} style=0x{style:02X} "
                f"{'5/3' if wavelet else '9/7'} precincts={','.join(precincts) or 'max'}")
    if name == "QCD":
        sqcd = seg[0]
        kind = ["none", "derived", "expounded"][sqcd & 3] if (sqcd & 3) < 3 else "?"
        if (sqcd & 3) == 0:
            steps = [b >> 3 for b in seg[1:]]
        else:
            steps = [(v >> 11, v & 0x7FF) for v in struct.unpack(f">{(len(seg) - 1) // 2}H", seg[1:])]
        return f"guard={sqcd >> 5} {kind} steps={steps}"
    if name == "SOT":
        isot, psot, tpsot, tnsot = struct.unpack(">HIBB", seg[:8])
        return f"tile={isot} Psot={psot} part={tpsot}/{tnsot}"
    if name == "TLM":
        return f"Ztlm={seg[0]} Stlm=0x{seg[1]:02X} entries bytes={len(seg) - 2}"
    if name == "POC":
        n = len(seg) // 7
        return "changes=" + " ".join(
            "(RS{} CS{} LYE{} RE{} CE{} {})".format(*struct.unpack(">BBHBB", seg[7 * i:7 * i + 6]),
                                                  ORDERS[seg[7 * i + 6]] if seg[7 * i + 6] < 5 else "?")
            for i in range(n))
    if name == "COM":
        return repr(seg[2:].decode("latin-1"))
    return ""


def walk(path):
    data = codestream(open(path, "rb").read())
    pos, lines = 0, []
    while pos + 2 <= len(data):
        marker = struct.unpack(">H", data[pos:pos + 2])[0]
        name = NAMES.get(marker, f"0x{marker:04X}")
        if marker in (0xFF4F, 0xFFD9):
            lines.append(f"{pos:>9} {name}")
            pos += 2
            continue
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        seg = data[pos + 4:pos + 2 + length]
        lines.append(f"{pos:>9} {name} len={length} {fields(name, seg)}".rstrip())
        if marker == 0xFF90:  # skip the tile-part's header and data: to its end
            psot = struct.unpack(">I", seg[2:6])[0]
            end = pos + psot if psot else len(data) - 2
            p = pos + 2 + length
            while p < end:
                m = struct.unpack(">H", data[p:p + 2])[0]
                if m == 0xFF93:
                    lines.append(f"{p:>9} SOD data={end - p - 2} bytes")
                    break
                ln = struct.unpack(">H", data[p + 2:p + 4])[0]
                nm = NAMES.get(m, f"0x{m:04X}")
                lines.append(f"{p:>9} {nm} len={ln} {fields(nm, data[p + 4:p + 2 + ln])}".rstrip())
                p += 2 + ln
            pos = end
            continue
        pos += 2 + length
    return lines


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        print(f"== {path} ({len(open(path, 'rb').read())} bytes)")
        print("\n".join(walk(path)))
