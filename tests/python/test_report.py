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


def _sweep_and_report(belady_bin, d, experiment, store, page, *options):
    """Sweeps `experiment` (TOML text) into `d / store` and reports it to `d / page`; the two paths."""
    exp = d / "exp.toml"
    exp.write_text(experiment)
    subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(d / store), "--quiet"], check=True,
                   capture_output=True)
    subprocess.run([str(belady_bin), "report", "--store", str(d / store), "-o", str(d / page), *options],
                   check=True, capture_output=True)
    return d / store, d / page


@pytest.fixture(scope="module")
def report(belady_bin, traces, tmp_path_factory):
    _, html = _sweep_and_report(
        belady_bin, tmp_path_factory.mktemp("report"),
        'policies = ["opt", "lru", "arc", "lirs"]\n'
        'sizes = ["50", "100", "200", "400"]\n'
        'prefetch = ["none", "linux24"]\n'
        'disks = ["cheetah9lp"]\n'
        f'[[trace]]\npath = "{traces / "lirs" / "cpp.trace.gz"}"\nformat = "lirs"\n',
        "r.sqlite", "report.html")
    return html


def test_report_is_self_contained_with_every_chart(report):
    text = report.read_text()
    # Hit ratio, disk requests and execution time, each with and without read-ahead.
    assert text.count("<svg") == 6
    assert not re.search(r"<script|<link|src=\"http|href=\"http", text), "nothing to fetch"
    svgs = sorted(p.name for p in (report.parent / "report-charts").iterdir())
    assert len(svgs) == 6 and all(n.endswith(".svg") for n in svgs)
    for policy in ("opt", "lru", "arc", "lirs"):
        # OPT's legend entry says it is the reference.
        assert re.search(rf">\s*{policy}( \(reference\))?\s*</text>", text) and f"<td>{policy}</td>" in text
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
# frame spans x 66..362 and y 48..292 (below the title and the axis' subtitle); the legend sits to
# its right, so it is left out here.
CHART_SIZE = (520, 340)
PLOT = (67, 49, 360, 290)

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
    # Thousands of pixels: black (LRU) and the greys do not count as coloured.
    _check_report_page(report, svgs, tmp_path / "profile", min_height=1600, min_coloured=600)


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


# ---- issue 39: the report read at a glance -------------------------------------------------------

GLANCE_POLICIES = ["opt", "lru", "fifo", "arc", "lirs", "clock", "2q", "sieve", "s3fifo", "mq"]


@pytest.fixture(scope="module")
def glance(belady_bin, traces, tmp_path_factory):
    """Ten policies (more than the six a chart highlights all of) on one trace, four sizes, without
    and with read-ahead, no disk model; the page, its store's rows and `sim --print-config`'s
    defaults."""
    store, page = _sweep_and_report(
        belady_bin, tmp_path_factory.mktemp("glance"),
        f"policies = {json.dumps(GLANCE_POLICIES)}\n"
        'sizes = ["100", "300", "1000", "2000"]\n'
        'prefetch = ["none", "linux6"]\n'
        f'[[trace]]\npath = "{traces / "lirs" / "cpp.trace.gz"}"\nformat = "lirs"\n',
        "g.sqlite", "g.html", "--highlight", "clock")
    rows = json.loads(subprocess.run([str(belady_bin), "results", "export", "--store", str(store), "--format",
                                      "json"], check=True, capture_output=True, text=True).stdout)
    defaults = json.loads(subprocess.run([str(belady_bin), "sim", "--print-config", "x.trace", "-c", "10"],
                                         check=True, capture_output=True, text=True).stdout)
    return page, rows, defaults


_ELEMENT = re.compile(r"<(circle|rect|polygon|polyline|line|text)\b([^>]*)>(?:([^<]*)</text>)?", re.S)


def _attr(attrs, name):
    m = re.search(rf'\b{name}="([^"]*)"', attrs)
    return m.group(1) if m else None


def _centre_y(tag, attrs):
    """The vertical centre of a drawn element (pixels)."""
    if tag == "circle":
        return float(_attr(attrs, "cy"))
    if tag == "rect":
        return float(_attr(attrs, "y")) + float(_attr(attrs, "height")) / 2
    if tag == "line":
        return (float(_attr(attrs, "y1")) + float(_attr(attrs, "y2"))) / 2
    ys = [float(p.split(",")[1]) for p in (_attr(attrs, "points") or "0,0").split()]
    return sum(ys) / len(ys)


def _legend(svg):
    """The chart's legend entries, top to bottom: (label, line colour, marker) where the marker is
    (shape, colour) or None; the legend is what plotters draws right of the plot (x >= 372), each
    entry's sample and marker level with its first row of text."""
    entries, pending = [], []
    for tag, attrs, text in _ELEMENT.findall(svg):
        if tag == "text":
            x = float(_attr(attrs, "x") or 0)
            if x < 400:
                continue
            label = " ".join(text.split())
            level = float(_attr(attrs, "y")) + 6
            pending = [(t, a) for t, a in pending if abs(_centre_y(t, a) - level) <= 6]
            if pending:
                line = next((_attr(a, "stroke") for t, a in pending if t == "polyline"
                             and len((_attr(a, "points") or "").split()) == 2), None)
                marks = [(t, a) for t, a in pending if not (t == "polyline"
                                                            and len((_attr(a, "points") or "").split()) == 2)]
                marker = None
                if marks:
                    t, a = marks[0]
                    colour = _attr(a, "fill") if _attr(a, "fill") not in (None, "none") else _attr(a, "stroke")
                    shape = (t, len((_attr(a, "points") or "").split()), _attr(a, "fill") == "none", len(marks))
                    if t == "polygon":
                        pts = [tuple(map(int, p.split(","))) for p in _attr(a, "points").split()]
                        shape += (pts[0][1] < pts[1][1],)  # pointing up or down
                    marker = (shape, colour)
                entries.append([label, line, marker])
                pending = []
            elif entries:
                entries[-1][0] += " " + label
        else:
            xs = [float(_attr(attrs, k)) for k in ("x", "cx", "x1") if _attr(attrs, k)]
            pts = _attr(attrs, "points")
            if pts:
                xs += [float(p.split(",")[0]) for p in pts.split()]
            if xs and min(xs) >= 372:
                pending.append((tag, attrs))
    return [tuple(e) for e in entries]


def _sections(text):
    return [part for part in text.split('<h2 id="s')[1:]]


def test_highlighted_lines_differ_in_colour_and_marker_and_the_rest_are_grey(glance):
    page, rows, _ = glance
    svgs = sorted((page.parent / "g-charts").iterdir())
    assert svgs
    policies = [p for p in GLANCE_POLICIES if p != "opt"]
    look_of = {}
    for path in svgs:
        svg = path.read_text()
        entries = _legend(svg)
        labels = [e[0] for e in entries]
        grey = [e for e in entries if e[0].endswith("(grey)")]
        highlighted = [e for e in entries if not e[0].endswith("(grey)") and e[0] != "opt (reference)"]
        assert "opt (reference)" in labels, (path.name, labels)
        # Distinct colour and marker for every highlighted line (and no two share a colour).
        looks = [(e[1], e[2]) for e in highlighted]
        assert all(e[2] is not None for e in highlighted), (path.name, entries)
        assert len(set(looks)) == len(looks), (path.name, looks)
        assert len({e[1] for e in highlighted}) == len(highlighted), (path.name, looks)
        assert len({e[2][0] for e in highlighted}) == len(highlighted), ("marker shapes", path.name, looks)
        # A policy looks the same in every chart of its section (nine policies fit the palette).
        for label, line, marker in highlighted:
            if "(tied)" not in label:
                assert look_of.setdefault(label, (line, marker)) == (line, marker), (path.name, label)
        # The baselines and the named policy are always highlighted; ties are named together.
        named = {n.strip() for e in highlighted for n in e[0].replace("(tied)", "").split(",")}
        assert {"lru", "fifo", "clock"} <= named, (path.name, labels)
        # One legend entry for the grey rest, counting them; as many thin grey lines drawn.
        assert len(grey) == 1, (path.name, labels)
        count = int(re.match(r"(\d+) other polic", grey[0][0]).group(1))
        assert count + len(named) == len(policies), (path.name, labels)
        thin = re.findall(r'<polyline fill="none" opacity="1" stroke="#D0D0D0" stroke-width="1"', svg)
        assert len(thin) == count, (path.name, len(thin), count)


def test_each_chart_highlights_the_best_at_every_size_unless_many_tie(glance):
    page, rows, _ = glance
    for path in sorted((page.parent / "g-charts").iterdir()):
        prefetch = "none" if "-none-" in path.name else "linux6"
        key, better = ("hit_ratio", max) if "hit-ratio" in path.name else ("disk_requests", min)
        named = {n.strip() for e in _legend(path.read_text()) for n in e[0].replace("(tied)", "").split(",")}
        mine = [r for r in rows if r["prefetch"] == prefetch and r["policy"] != "opt"]
        for size in {r["capacity"] for r in mine}:
            at = {r["policy"]: r[key] for r in mine if r["capacity"] == size}
            best = better(at.values())
            tied = [p for p, v in at.items() if abs(v - best) <= 1e-9 * max(abs(best), 1)]
            if len(tied) <= 3:
                assert set(tied) <= named, (path.name, size, tied, named)


def test_value_axes_span_the_data_and_say_where_they_start(glance):
    page, rows, _ = glance
    for path in sorted((page.parent / "g-charts").iterdir()):
        svg = path.read_text()
        m = re.search(r"y axis from ([\d.]+)(%?)(k?) to ([\d.]+)%?(k?)( \(not from 0\))?", svg)
        assert m, path.name
        scale = lambda v, k: float(v) * (1000 if k else 1)  # noqa: E731
        lo, hi = scale(m.group(1), m.group(3)), scale(m.group(4), m.group(5))
        prefetch = "none" if "-none-" in path.name else "linux6"
        key, factor = ("hit_ratio", 100) if "hit-ratio" in path.name else ("disk_requests", 1)
        values = [r[key] * factor for r in rows if r["prefetch"] == prefetch]
        assert lo <= min(values) and hi >= max(values), (path.name, lo, hi, min(values), max(values))
        assert (m.group(6) is not None) == (lo > 0), path.name
        if key == "hit_ratio" and min(values) > 0.3 * max(values):
            # Data far from 0: the axis does not start there, and its lowest tick says so.
            assert lo > 0, (path.name, lo, min(values))
            assert lo >= min(values) - (max(values) - min(values)), (path.name, lo)


def test_no_disk_requests_chart_without_read_ahead_or_a_disk(glance):
    page, _, _ = glance
    names = sorted(p.name for p in (page.parent / "g-charts").iterdir())
    assert any("-linux6-disk-requests" in n for n in names), names
    assert not any("-none-disk-requests" in n for n in names), names
    assert "Disk requests — read-ahead: none" not in page.read_text()


def test_settings_line_lists_only_what_differs_from_the_defaults(glance):
    page, _, defaults = glance
    (section,) = _sections(page.read_text())
    line = re.search(r'<p class="setting">(trace [^<]*)</p>', section).group(1)
    shown = dict(part.split(" ", 1) for part in line.split(" · "))
    everything = re.search(r"<details class=\"setting\"><summary>all settings</summary>([^<]*)</details>",
                           section).group(1)
    every = dict(part.split(" ", 1) for part in everything.split(" · "))

    def default(key):
        v = defaults.get(key)
        if v is None:
            return "-"
        if isinstance(v, list):
            return " ".join(map(str, v))
        return v if isinstance(v, str) else json.dumps(v)

    never = {"trace", "disk", "capacity_unit", "trace_hash", "belady_version"}
    differ = {k for k, v in every.items() if k not in never and k in defaults and v not in ("-", default(k))}
    assert set(shown) - {"trace"} == differ, (shown, differ)
    assert "format" in differ, "the experiment names its format"
    assert "cf_bandwidth" not in shown and "warm" not in shown and "seed" not in shown
    assert {"trace_hash", "block_size", "seed"} <= set(every), "the rest a click away"


def test_untimed_is_explained_once_per_place(glance):
    page, _, _ = glance
    text = page.read_text()
    assert "(untimed) untimed" not in text and "untimed: no disk" not in text
    # Once under the summary and once under the section's heading.
    assert text.count("read-ahead completes at once") == 2, text.count("read-ahead completes at once")


def _glance_tables(section):
    """Each ranked table of a section: (caption, header sizes, rows), rows as (rank, policy, mean,
    [(starred, value)])."""
    out = []
    for caption, body in re.findall(r'<table class="glance"><caption>([^<]*)</caption>(.*?)</table>', section, re.S):
        trs = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
        groups = re.findall(r'<th colspan="(\d+)">([^<]*)</th>', trs[0])
        rows = []
        for tr in trs[2:]:
            cells = re.findall(r"<td[^>]*>([^<]*)</td>", tr)
            if "(reference)" in cells[1]:
                continue
            values = [(c.startswith("★"), float(c.lstrip("★ "))) for c in cells[3:]]
            rows.append((cells[0], cells[1], float(cells[2]), values))
        out.append((caption, groups, rows))
    return out


def test_ranked_table_marks_the_best_of_each_column_and_ranks_by_the_stated_rule(glance):
    page, rows, _ = glance
    (section,) = _sections(page.read_text())
    assert "ranked by their mean hit ratio over the cache sizes every policy ran (highest first)" in section
    tables = _glance_tables(section)
    assert [t[0].split(" (")[0] for t in tables] == ["Ranked — read-ahead: none", "Ranked — read-ahead: linux6"]
    for caption, groups, table in tables:
        prefetch = "none" if "none" in caption else "linux6"
        mine = [r for r in rows if r["prefetch"] == prefetch and r["policy"] != "opt"]
        sizes = sorted({r["capacity"] for r in mine})
        assert {p for _, p, _, _ in table} == {r["policy"] for r in mine}
        column = 0
        for count, label in groups:
            key = {"hit ratio (%)": "hit_ratio", "disk requests": "disk_requests"}[label]
            factor = 100 if key == "hit_ratio" else 1
            for size in sizes:
                value = {r["policy"]: r[key] * factor for r in mine if r["capacity"] == size}
                best = (max if key == "hit_ratio" else min)(value.values())
                want = {p for p, v in value.items() if abs(v - best) <= 1e-9 * max(abs(best), 1)}
                starred = {p for _, p, _, cells in table if cells[column][0]}
                assert starred == want, (caption, label, size, starred, want)
                column += 1
            assert int(count) == len(sizes)
        # Ranked by the mean hit ratio (highest first); equal shown means share a rank.
        means = {p: sum(100 * r["hit_ratio"] for r in mine if r["policy"] == p) / len(sizes)
                 for p in {r["policy"] for r in mine}}
        order = [p for _, p, _, _ in table]
        assert [round(means[p], 2) for p in order] == sorted((round(v, 2) for v in means.values()), reverse=True)
        for rank, p, mean, _ in table:
            assert mean == pytest.approx(means[p], abs=0.005)
            # Competition ranking: one more than the policies with a higher mean as shown.
            assert int(rank) == 1 + sum(1 for v in means.values() if round(v, 2) > round(means[p], 2)), (p, rank)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_glance_charts_render_aligned_in_headless_chromium(glance, tmp_path):
    page, _, _ = glance
    text = page.read_text()
    svgs = re.findall(r"<svg.*?</svg>", text, re.S)
    shots = _screenshots(page, tmp_path / "profile")
    # Charts side by side sit at the same height and are as tall as each other.
    by_top = {}
    for (x, y, w, h), _ in shots:
        by_top.setdefault(round(y), []).append(round(h))
    assert any(len(hs) == 2 for hs in by_top.values()), by_top
    for hs in by_top.values():
        assert len(set(hs)) == 1, by_top
    _check_report_page(page, svgs, tmp_path / "profile2")
