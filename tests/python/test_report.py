"""`belady report`: a self-contained HTML page whose charts render in headless Chromium."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import select
import shutil
import struct
import subprocess
import time
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
        assert re.search(rf">\s*{policy}\s*</text>", text) and f"<td>{policy}</td>" in text
    # Headings name the trace by file name, not by its absolute path.
    assert re.search(r"<h2 id=\"s0\">cpp\.trace\.gz <small>\(disk: cheetah9lp\)</small></h2>", text)
    # The summary comes first: one row per read-ahead setting of the trace.
    assert text.index("<h2>Summary</h2>") < text.index("<svg")
    summary = text[text.index("<h2>Summary</h2>"):text.index("</table>")]
    assert summary.count("<tr>") == 3


def test_charts_tick_the_simulated_sizes_and_tell_lines_apart(report):
    for svg in sorted((report.parent / "report-charts").iterdir()):
        chart = svg.read_text()
        # A log2 size axis: a tick label at each simulated size and no others.
        labels = {int(t) for t in re.findall(r">\s*(\d+)\s*</text>", chart)}
        assert {50, 100, 200, 400} <= labels, svg.name
        assert "log2" in chart
        # Every policy its own colour; OPT the grey reference (dashed: drawn as many short pieces).
        strokes = re.findall(r'<polyline[^>]*stroke="(#[0-9A-F]{6})"', chart)
        colours = set(strokes)
        assert len(colours) == 4, (svg.name, colours)
        assert strokes.count("#777777") > 4, "OPT dashed grey"


def test_report_is_deterministic(belady_bin, report, tmp_path):
    again = tmp_path / "again.html"
    subprocess.run([str(belady_bin), "report", "--store", str(report.parent / "r.sqlite"), "-o", str(again)],
                   check=True, capture_output=True)
    assert again.read_bytes() == report.read_bytes()


def _png_rgb(data):
    """Width, height and RGB pixels of a non-interlaced 8-bit RGB or RGBA PNG (what Chromium writes)."""
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


class _DevTools:
    """Headless Chromium driven over the DevTools protocol on a pipe (no client package needed):
    the page's layout says where each chart is, so each one can be captured on its own."""

    def __init__(self, profile):
        commands, self._out = os.pipe()
        self._in, replies = os.pipe()

        def on_fds_3_and_4():  # where --remote-debugging-pipe reads commands and writes replies
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands, replies)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=on_fds_3_and_4, pass_fds=(3, 4))
        os.close(commands)
        os.close(replies)
        self._buf, self._id, self._events = b"", 0, []

    def _read(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise TimeoutError("chromium did not answer within 120 s")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, session=None, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._out, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + 120
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._id:
                assert "error" not in reply, (method, reply["error"])
                return reply["result"]
            self._events.append(reply)

    def wait_for(self, event, session):
        deadline = time.monotonic() + 120
        while True:
            for e in self._events:
                if e.get("method") == event and e.get("sessionId") == session:
                    self._events.remove(e)
                    return e
            self._events.append(self._read(deadline))

    def close(self):
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        finally:
            os.close(self._out)
            os.close(self._in)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# Where the report's charts draw their data (report_chart.rs `draw`): a 520x340 SVG whose plot
# frame spans x 66..361 and y 29..291; the legend sits to its right, so it is left out here.
CHART_SIZE = (520, 340)
PLOT = (67, 30, 360, 290)

LAYOUT_JS = """JSON.stringify({
  height: document.documentElement.scrollHeight,
  charts: [...document.querySelectorAll("svg")].map(s => {
    const r = s.getBoundingClientRect();
    return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height];
  }),
})"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_report_renders_in_headless_chromium(belady_bin, report, tmp_path):
    claimed = subprocess.run(
        [str(belady_bin), "report", "--store", str(report.parent / "r.sqlite"), "-o", str(tmp_path / "r.html")],
        check=True, capture_output=True, text=True).stderr
    charts = int(re.search(r"\((\d+) charts\)", claimed).group(1))
    assert charts == report.read_text().count("<svg") == 6
    browser = _DevTools(tmp_path / "profile")
    try:
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        browser.send("Page.enable", session)
        browser.send("Emulation.setDeviceMetricsOverride", session, width=1200, height=900, deviceScaleFactor=1,
                     mobile=False)
        browser.send("Page.navigate", session, url=report.as_uri())
        browser.wait_for("Page.loadEventFired", session)
        height = json.loads(browser.send("Runtime.evaluate", session, expression=LAYOUT_JS,
                                         returnByValue=True)["result"]["value"])["height"]
        assert height > 1600, "the page is taller than one screen; every chart is still checked"
        # One window as tall as the page, so every chart is laid out and painted inside it.
        browser.send("Emulation.setDeviceMetricsOverride", session, width=1200, height=height,
                     deviceScaleFactor=1, mobile=False)
        layout = json.loads(browser.send("Runtime.evaluate", session, expression=LAYOUT_JS,
                                         returnByValue=True)["result"]["value"])
        assert len(layout["charts"]) == charts
        shots = []
        for x, y, w, h in layout["charts"]:
            assert (round(w), round(h)) == CHART_SIZE and y + h <= layout["height"], (x, y, w, h)
            clip = {"x": x, "y": y, "width": w, "height": h, "scale": 1}
            shots.append(base64.b64decode(browser.send("Page.captureScreenshot", session, format="png",
                                                       clip=clip)["data"]))
    finally:
        browser.close()
    for i, shot in enumerate(shots):
        width, height, bpp, rows = _png_rgb(shot)
        assert (width, height) == CHART_SIZE, i
        # Not blank: the policies' coloured lines and points show inside the plot frame (grey grid,
        # black text and the white background do not count).
        x0, y0, x1, y1 = PLOT
        coloured = sum(
            1
            for row in rows[y0:y1]
            for x in range(x0 * bpp, x1 * bpp, bpp)
            if max(row[x:x + 3]) - min(row[x:x + 3]) > 80
        )
        assert coloured > 1000, (i, coloured)


def _sweep_twice(belady_bin, tmp_path):
    """One store, two runs of one configuration that differ only in the trace file's content
    (LRU with 2 blocks hits 4 of 6 on "1 2 1 2 1 2" and none on "1 2 3 1 2 3")."""
    trace = tmp_path / "t.trace"
    exp = tmp_path / "e.toml"
    exp.write_text('policies = ["lru"]\nsizes = ["2"]\n[[trace]]\npath = "t.trace"\nformat = "lirs"\n')
    store = tmp_path / "r.sqlite"
    for content in ("1\n2\n1\n2\n1\n2\n", "1\n2\n3\n1\n2\n3\n"):
        trace.write_text(content)
        subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(store), "--quiet"], check=True,
                       capture_output=True)
    return store


def test_export_keeps_a_changed_traces_runs_apart(belady_bin, tmp_path):
    store = _sweep_twice(belady_bin, tmp_path)
    rows = json.loads(subprocess.run([str(belady_bin), "results", "export", "--store", str(store), "--format",
                                      "json"], check=True, capture_output=True, text=True).stdout)
    assert sorted((r["hits"], r["requests"]) for r in rows) == [(0, 6), (4, 6)]
    assert len({r["trace_hash"] for r in rows}) == 2 and len({r["key"] for r in rows}) == 2


def test_python_results_and_plot_keep_a_changed_traces_runs_apart(belady_bin, tmp_path):
    belady = pytest.importorskip("belady")
    pytest.importorskip("matplotlib")
    store = _sweep_twice(belady_bin, tmp_path)
    frame = belady.results(store)
    assert sorted(frame["hits"]) == [0, 4] and frame["trace_hash"].nunique() == 2
    # One line through both runs would be a wrong chart: plot refuses and says how to choose.
    with pytest.raises(ValueError, match="trace_hash"):
        belady.plot(frame)
    one = frame[frame["trace_hash"] == frame["trace_hash"].iloc[0]]
    assert belady.plot(one) is not None
