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


def _screenshots(page, profile, min_height=0):
    """Each chart (`<svg>`) of `page` as Chromium paints it: (left, top, width, height) and PNG bytes."""
    browser = _DevTools(profile)
    try:
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        browser.send("Page.enable", session)
        browser.send("Emulation.setDeviceMetricsOverride", session, width=1200, height=900, deviceScaleFactor=1,
                     mobile=False)
        browser.send("Page.navigate", session, url=page.as_uri())
        browser.wait_for("Page.loadEventFired", session)
        height = json.loads(browser.send("Runtime.evaluate", session, expression=LAYOUT_JS,
                                         returnByValue=True)["result"]["value"])["height"]
        assert height > min_height, "the page is taller than one screen; every chart is still checked"
        # One window as tall as the page, so every chart is laid out and painted inside it.
        browser.send("Emulation.setDeviceMetricsOverride", session, width=1200, height=height,
                     deviceScaleFactor=1, mobile=False)
        layout = json.loads(browser.send("Runtime.evaluate", session, expression=LAYOUT_JS,
                                         returnByValue=True)["result"]["value"])
        shots = []
        for x, y, w, h in layout["charts"]:
            assert y + h <= layout["height"], (x, y, w, h)
            clip = {"x": x, "y": y, "width": w, "height": h, "scale": 1}
            shots.append(((x, y, w, h), base64.b64decode(
                browser.send("Page.captureScreenshot", session, format="png", clip=clip)["data"])))
    finally:
        browser.close()
    return shots


def _line_colours(svg, widths=("2",)):
    """The colours of a chart's drawn lines (its series, as plotters writes them), as RGB triples."""
    found = re.findall(r'<polyline[^>]*stroke="#([0-9A-F]{6})" stroke-width="(\d+)"', svg)
    return sorted({tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)) for c, w in found if w in widths})


def _pixels_of(rows, bpp, box, colour, tolerance=40):
    """How many pixels inside `box` (x0, y0, x1, y1) are within `tolerance` of `colour` in every channel."""
    x0, y0, x1, y1 = box
    return sum(
        1
        for row in rows[y0:y1]
        for x in range(x0 * bpp, x1 * bpp, bpp)
        if all(abs(row[x + k] - colour[k]) <= tolerance for k in range(3))
    )


def _check_report_page(page, svgs, profile, min_height=0, min_coloured=300):
    """Every chart of a report page, painted by Chromium, shows each of its lines in the plot frame."""
    shots = _screenshots(page, profile, min_height)
    assert len(shots) == len(svgs)
    for i, (((_, _, w, h), shot), svg) in enumerate(zip(shots, svgs)):
        # The width is fixed; a legend longer than the plot makes the chart taller below it.
        assert round(w) == CHART_SIZE[0] and round(h) >= CHART_SIZE[1], (i, w, h)
        width, height, bpp, rows = _png_rgb(shot)
        # Not blank: the policies' coloured lines and points show inside the plot frame (grey grid,
        # black text and the white background do not count).
        coloured = sum(
            1
            for row in rows[PLOT[1]:PLOT[3]]
            for x in range(PLOT[0] * bpp, PLOT[2] * bpp, bpp)
            if max(row[x:x + 3]) - min(row[x:x + 3]) > 80
        )
        assert coloured > min_coloured, (i, coloured)
        # Every line (each policy, a tie of policies, OPT) shows in its own colour: drawn under
        # another, its markers are spread beside the other's, and OPT's dashes let the line under it
        # show.
        for colour in _line_colours(svg):
            seen = _pixels_of(rows, bpp, PLOT, colour)
            assert seen > 40, (i, colour, seen)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_report_renders_in_headless_chromium(belady_bin, report, tmp_path):
    claimed = subprocess.run(
        [str(belady_bin), "report", "--store", str(report.parent / "r.sqlite"), "-o", str(tmp_path / "r.html")],
        check=True, capture_output=True, text=True).stderr
    charts = int(re.search(r"\((\d+) charts\)", claimed).group(1))
    text = report.read_text()
    assert charts == text.count("<svg") == 6
    svgs = re.findall(r"<svg.*?</svg>", text, re.S)
    _check_report_page(report, svgs, tmp_path / "profile", min_height=1600, min_coloured=1000)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_tied_policies_all_show_in_headless_chromium(belady_bin, tmp_path):
    """Lines that tie: every block read once misses for every policy (all tied at 0% without
    read-ahead), and with read-ahead some tie at some sizes only. Each line still shows, and every
    policy is named in its chart's legend."""
    trace = tmp_path / "once.trace"
    trace.write_text("".join(f"{b}\n" for b in list(range(2000)) + [i % 150 for i in range(1500)]))
    policies = ["opt", "lru", "fifo", "arc", "lirs", "clock", "2q"]
    exp = tmp_path / "tie.toml"
    exp.write_text(f"policies = {json.dumps(policies)}\nsizes = [\"50\", \"100\", \"200\", \"400\"]\n"
                   'prefetch = ["none", "linux6"]\n[[trace]]\npath = "once.trace"\nformat = "lirs"\n')
    store = tmp_path / "tie.sqlite"
    subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(store), "--quiet"], check=True,
                   capture_output=True)
    page = tmp_path / "tie.html"
    subprocess.run([str(belady_bin), "report", "--store", str(store), "-o", str(page)], check=True,
                   capture_output=True)
    text = page.read_text()
    svgs = re.findall(r"<svg.*?</svg>", text, re.S)
    assert svgs and any("(tied)" in svg for svg in svgs), "a tie is drawn as one line naming its members"
    for svg in svgs:
        legend = " ".join(" ".join(t.split()) for t in re.findall(r">([^<>]*)</text>", svg))
        for policy in policies:
            assert re.search(rf"(^|[ ,]){re.escape(policy)}([ ,]|$)", legend), (policy, legend)
    _check_report_page(page, svgs, tmp_path / "profile")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_mrc_page_shows_every_curve_in_headless_chromium(belady_bin, traces, tmp_path):
    """The quick start's `belady mrc ps.trace.gz --policy lru,arc --sample-rate 0.01 --html`, with
    FIFO too: the curves coincide at most sizes, and each still shows in its own colour."""
    page = tmp_path / "mrc.html"
    subprocess.run([str(belady_bin), "mrc", str(traces / "lirs" / "ps.trace.gz"), "--policy", "lru,arc,fifo",
                    "--sample-rate", "0.01", "--html", str(page)], check=True, capture_output=True)
    svg = re.search(r"<svg.*?</svg>", page.read_text(), re.S).group(0)
    ((_, shot),) = _screenshots(page, tmp_path / "profile")
    width, height, bpp, rows = _png_rgb(shot)
    assert (width, height) == (960, 540)
    colours = [c for c in _line_colours(svg, ("2", "3")) if c != (119, 119, 119)]
    assert len(colours) == 3, colours
    # The plot is the chart's left 700 pixels (mrc_chart.rs PLOT_WIDTH); the legend is right of it.
    plot = (80, 40, 700, 480)
    for colour in colours + [(119, 119, 119)]:
        seen = _pixels_of(rows, bpp, plot, colour)
        assert seen > 150, (colour, seen)


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
