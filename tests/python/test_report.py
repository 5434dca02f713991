"""`belady report`: a self-contained HTML page whose charts render in headless Chromium."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def report(belady_bin, traces, tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    exp = d / "exp.toml"
    exp.write_text(
        'policies = ["opt", "lru", "arc", "lirs"]\n'
        'sizes = ["50", "100", "200", "400"]\n'
        'prefetch = ["none", "linux24"]\n'
        'disks = ["cheetah9lp"]\n'
        f'[[trace]]\npath = "{traces / "lirs" / "cpp.trace.gz"}"\nformat = "lirs"\n'
    )
    store = d / "r.sqlite"
    subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(store), "--quiet"], check=True,
                   capture_output=True)
    html = d / "report.html"
    subprocess.run([str(belady_bin), "report", "--store", str(store), "-o", str(html)], check=True,
                   capture_output=True)
    return html


def test_report_is_self_contained_with_every_chart(report):
    text = report.read_text()
    # Hit ratio, disk requests and execution time, each with and without read-ahead.
    assert text.count("<svg") == 6
    assert not re.search(r"<script|<link|src=\"http|href=\"http", text), "nothing to fetch"
    svgs = sorted(p.name for p in (report.parent / "report-charts").iterdir())
    assert len(svgs) == 6 and all(n.endswith(".svg") for n in svgs)
    for policy in ("opt", "lru", "arc", "lirs"):
        assert f">{policy}</text>" in text and f"<td>{policy}</td>" in text


def test_report_is_deterministic(belady_bin, report, tmp_path):
    again = tmp_path / "again.html"
    subprocess.run([str(belady_bin), "report", "--store", str(report.parent / "r.sqlite"), "-o", str(again)],
                   check=True, capture_output=True)
    assert again.read_bytes() == report.read_bytes()


def _png_rgb(path):
    """Width, height and RGB pixels of a non-interlaced 8-bit RGB or RGBA PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    pixels = []
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        pixels.append(line)
        prev = line
    return width, height, bpp, pixels


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_report_renders_in_headless_chromium(report, tmp_path):
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1200,1600", report.as_uri()],
                   check=True, capture_output=True, timeout=180)
    width, height, bpp, rows = _png_rgb(shot)
    assert (width, height) == (1200, 1600)
    # Not blank: the policies' coloured lines and points show (grey text and white page do not count).
    coloured = sum(
        1
        for row in rows[::2]
        for x in range(0, width * bpp, bpp * 2)
        if max(row[x:x + 3]) - min(row[x:x + 3]) > 80
    )
    assert coloured > 500, coloured
