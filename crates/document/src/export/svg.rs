//! Charts as standalone SVG: a horizontal grouped bar chart per
//! [`BarChart`].
//!
//! The SVG is written by hand rather than with `plotters`. Its SVG backend
//! only draws primitives (rects, lines, text) at integer pixels; everything
//! this chart needs beyond that would be drawn by hand on top of it anyway:
//! the category axis with one group of bars per row, a label gutter as wide
//! as the longest label, value and flag text after each bar, failed slots
//! written as red text, power-of-ten ticks on a data-derived log domain.
//! What it cannot do at all is what makes the chart readable and testable:
//! a real `stroke-dasharray` outline for flagged bars (it emits a dashed
//! path as many separate `<line>`s), `class`/`data-*` attributes saying
//! what a bar is, and `<title>` tooltips for the HTML report. So it would
//! add a dependency tree and take away control; the document below is plain
//! text with every label XML-escaped.
//!
//! Layout, top to bottom: title, legend (more than one series, or any
//! flagged bar), tick labels (again on top for tall charts), the rows, the
//! value axis with its tick labels and the axis caption, then the chart's
//! caption wrapped to the width. Heights grow with rows × series; widths
//! are estimated at 0.6 × font size per character.

use std::fmt::Write as _;

use crate::{Bar, BarChart, Mark, Unit};

/// Nominal width of the image; grows when long labels leave the plot too
/// narrow.
const WIDTH: f64 = 960.0;
/// Width of the phone variant ([`render_narrow`]): drawn at 1:1 on a
/// 390 px screen, so its 11–12 px text stays 11–12 px.
const NARROW_WIDTH: f64 = 360.0;
/// Narrowest plot area of the phone variant.
const NARROW_MIN_PLOT_W: f64 = 150.0;
/// Height of a row label drawn above its bars (phone variant).
const LABEL_ABOVE: f64 = 15.0;
/// Narrowest plot area (where the bars are).
const MIN_PLOT_W: f64 = 420.0;
const MARGIN: f64 = 12.0;
const FONT: f64 = 12.0;
const SMALL_FONT: f64 = 11.0;
const TITLE_FONT: f64 = 16.0;
/// Height of one bar: enough for the 11 px value text beside it, thin
/// enough that 60 rows × 3 series stay a chart rather than a wall.
const BAR_H: f64 = 12.0;
/// Space between bars of one group.
const BAR_GAP: f64 = 2.0;
/// Space between groups of bars with one series, and with several.
const GROUP_GAP_SINGLE: f64 = 5.0;
const GROUP_GAP_MULTI: f64 = 8.0;
/// Gap between a bar's end and its value text.
const TEXT_PAD: f64 = 4.0;
/// The least room between two tick labels.
const TICK_GAP: f64 = 8.0;
/// Plots taller than this repeat the tick labels on top.
const TALL: f64 = 500.0;

/// Series colours (Tableau 10 without its red, which marks failures).
const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1", "#9c755f", "#bab0ac",
];
const FAILED_COLOUR: &str = "#c62828";
const FLAG_COLOUR: &str = "#a35200";
const TEXT_COLOUR: &str = "#222";
const MUTED_COLOUR: &str = "#555";
const GRID_COLOUR: &str = "#ddd";
const MINOR_GRID_COLOUR: &str = "#f0f0f0";
const BAND_COLOUR: &str = "#f6f6f6";

/// The chart as a standalone SVG document: title and caption drawn in it,
/// so a `.svg` file says what it shows on its own.
pub fn render(chart: &BarChart) -> String {
    render_with(chart, true)
}

/// The chart for a page that prints its title and caption itself (the HTML
/// report's heading and `<figcaption>`): the same drawing without them, so
/// they are not shown twice. The `<title>` element (tooltip, accessible
/// name) stays.
pub(super) fn render_figure(chart: &BarChart) -> String {
    render_with(chart, false)
}

/// The figure for a phone: [`NARROW_WIDTH`] wide, each row's label above
/// its bars instead of in a gutter beside them, so the text is drawn at
/// its size rather than shrunk with a 960 px image.
pub(super) fn render_narrow(chart: &BarChart) -> String {
    let layout = Layout::new_with(chart, false, true);
    let mut out = String::with_capacity(4096 + chart.rows.len() * 600);
    layout.write(chart, &mut out);
    out
}

fn render_with(chart: &BarChart, framed: bool) -> String {
    let layout = Layout::new(chart, framed);
    let mut out = String::with_capacity(4096 + chart.rows.len() * 600);
    layout.write(chart, &mut out);
    out
}

/// The value axis: maps values to x and lists its ticks.
#[derive(Debug, Clone, Copy)]
enum Scale {
    /// From the decade `10^lo` up to `top`: 1, 2 or 5 × a power of ten,
    /// the first at or above the data, so that the axis does not run up to
    /// nine times past its longest bar; `hi` is the decade at or above
    /// `top`.
    Log { lo: i32, hi: i32, top: f64 },
    /// `0 ..= max` with ticks every `step`.
    Linear { max: f64, step: f64 },
}

impl Scale {
    fn new(chart: &BarChart) -> Scale {
        // The bars' values, and the slowest end of their whiskers.
        let values = chart
            .rows
            .iter()
            .flat_map(|r| &r.bars)
            .flat_map(|b| {
                drawn_value(b)
                    .into_iter()
                    .chain(b.range.filter(|_| drawn_value(b).is_some()).map(|r| r.1))
            })
            .filter(|v| v.is_finite());
        if chart.log {
            let (mut min, mut max) = (f64::INFINITY, 0.0f64);
            for v in values.filter(|&v| v > 0.0) {
                min = min.min(v);
                max = max.max(v);
            }
            if !min.is_finite() {
                return Scale::Log {
                    lo: 0,
                    hi: 1,
                    top: 10.0,
                };
            }
            let mut lo = min.log10().floor() as i32;
            // A bar at exactly the bottom of the axis would have no length.
            if 10f64.powi(lo) >= min * 0.999 {
                lo -= 1;
            }
            let mut hi = max.log10().ceil() as i32;
            if hi <= lo {
                hi = lo + 1;
            }
            let decade = 10f64.powi(hi - 1);
            let top = [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * decade)
                .find(|t| *t >= max * 0.999 && *t > 10f64.powi(lo))
                .unwrap_or(10f64.powi(hi));
            Scale::Log { lo, hi, top }
        } else {
            let max = values.fold(0.0f64, |m, v| m.max(v.abs()));
            let max = if max > 0.0 { max } else { 1.0 };
            let step = nice_step(max / 5.0);
            let top = (max / step - 1e-9).ceil().max(1.0) * step;
            Scale::Linear { max: top, step }
        }
    }

    /// Position of `v` as a fraction of the plot width, clamped to 0..=1;
    /// None where the value cannot be placed (≤ 0 on a log axis).
    fn fraction(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        let f = match *self {
            Scale::Log { lo, top, .. } => {
                if v <= 0.0 {
                    return None;
                }
                (v.log10() - lo as f64) / (top.log10() - lo as f64)
            }
            Scale::Linear { max, .. } => v.max(0.0) / max,
        };
        Some(f.clamp(0.0, 1.0))
    }

    /// Labelled ticks, as (value, label), in `unit`, in order of value,
    /// none of whose labels comes closer than `TICK_GAP` to another: a log
    /// axis's 1-2-5 ticks are not evenly spaced, and "50 MB100 MB200 MB"
    /// ran together where a rule of one per 40 px let them through. They
    /// are placed by importance ([`Scale::tier`]: 1 KB, 1 MB, 1 GB or a
    /// decade first), not left to right, which once gave 1 GB's place to
    /// 500 MB; on a RAM axis no two come closer than 40 px either.
    fn ticks(&self, plot_w: f64, unit: Unit) -> Vec<(f64, String)> {
        struct Placed {
            value: f64,
            label: String,
            x: f64,
            left: f64,
            right: f64,
        }
        let apart = match (self, unit) {
            (Scale::Log { .. }, Unit::Kb) => 40.0,
            _ => 0.0,
        };
        let mut candidates: Vec<(u8, usize, f64, String)> = self
            .candidate_ticks(plot_w, unit)
            .into_iter()
            .enumerate()
            .map(|(i, (v, label))| (self.tier(v, unit), i, v, label))
            .collect();
        candidates.sort_by_key(|c| (c.0, c.1));
        let mut placed: Vec<Placed> = Vec::new();
        for (_, _, value, label) in candidates {
            let Some(f) = self.fraction(value) else {
                continue;
            };
            let (x, w) = (f * plot_w, text_width(&label, SMALL_FONT));
            // As drawn: centred, or from the plot's start for the first.
            let left = (x - w / 2.0).max(0.0);
            let right = left + w;
            let clear = placed.iter().all(|p| {
                (left >= p.right + TICK_GAP || right + TICK_GAP <= p.left)
                    && (x - p.x).abs() >= apart
            });
            if clear {
                placed.push(Placed {
                    value,
                    label,
                    x,
                    left,
                    right,
                });
            }
        }
        placed.sort_by(|a, b| a.value.total_cmp(&b.value));
        placed.into_iter().map(|p| (p.value, p.label)).collect()
    }

    /// How much a tick matters (0 most): on a RAM axis a unit's 1 (1 KB,
    /// 1 MB, 1 GB), then its 10 and 100, then the 2s and 5s; on another
    /// log axis a decade, then the axis's end; on a linear axis all alike.
    fn tier(&self, v: f64, unit: Unit) -> u8 {
        let Scale::Log { .. } = self else {
            return 0;
        };
        let whole = |m: f64| (m - m.round()).abs() < 1e-6 * m.max(1.0);
        if unit == Unit::Kb {
            let p = (v.log(1024.0) + 1e-9).floor();
            let m = v / 1024f64.powf(p);
            return match m.round() as u64 {
                1 if whole(m) => 0,
                10 | 100 if whole(m) => 1,
                _ => 2,
            };
        }
        let e = v.log10().round();
        if (v / 10f64.powf(e) - 1.0).abs() < 1e-9 {
            0
        } else {
            1
        }
    }

    /// The ticks an axis could label, before [`Scale::ticks`] spaces them.
    fn candidate_ticks(&self, plot_w: f64, unit: Unit) -> Vec<(f64, String)> {
        if let (Scale::Log { lo, top, .. }, Unit::Kb) = (*self, unit) {
            // KB, MB, GB: ticks at 1, 2, 5, 10, ... of each (binary units,
            // as RSS is counted), not at decimal powers of KB.
            let (min, max) = (10f64.powi(lo), top);
            return (0..4)
                .flat_map(|p| {
                    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
                        .into_iter()
                        .map(move |m| m * 1024f64.powi(p))
                })
                .filter(|v| *v >= min * 0.999 && *v <= max * 1.001)
                .map(|v| (v, format_unit(v, unit)))
                .collect();
        }
        match *self {
            Scale::Log { lo, hi, top } => {
                // Label every decade unless they come closer than ~40 px,
                // and the axis's end where it is not a decade (20, 500).
                let decades = top.log10() - lo as f64;
                let every = ((40.0 * decades / plot_w).ceil() as i32).max(1);
                let mut ticks: Vec<f64> = (lo..=hi)
                    .filter(|e| (e - lo) % every == 0)
                    .map(|e| 10f64.powi(e))
                    .filter(|v| *v <= top * 1.001)
                    .collect();
                let last = ticks.last().copied().unwrap_or(0.0);
                // The end, unless it is the last decade or too close to it.
                let room = (top.log10() - last.log10()) / decades * plot_w;
                if top > last * 1.001 && room >= 28.0 {
                    ticks.push(top);
                }
                ticks
                    .into_iter()
                    .map(|v| (v, format_unit(v, unit)))
                    .collect()
            }
            Scale::Linear { max, step } => {
                let n = (max / step).round() as i64;
                (0..=n)
                    .map(|i| {
                        let v = i as f64 * step;
                        (v, format_unit(v, unit))
                    })
                    .collect()
            }
        }
    }

    /// Unlabelled grid lines between the ticks (2..9 × each decade; none
    /// on a KB axis, whose ticks are binary).
    fn minor_ticks(&self, unit: Unit) -> Vec<f64> {
        match *self {
            Scale::Log { .. } if unit == Unit::Kb => Vec::new(),
            Scale::Log { lo, hi, top } if hi - lo <= 12 => (lo..hi)
                .flat_map(|e| (2..10).map(move |m| m as f64 * 10f64.powi(e)))
                .filter(|v| *v < top * 0.999)
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The value a bar is drawn with: none for a failed bar.
fn drawn_value(bar: &Bar) -> Option<f64> {
    match bar.mark {
        Mark::Failed => None,
        _ => bar.value,
    }
}

/// 1, 2, 2.5 or 5 × a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let raw = if raw > 0.0 && raw.is_finite() {
        raw
    } else {
        1.0
    };
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|&m| m >= norm - 1e-9)
        .unwrap_or(10.0);
    m * mag
}

/// A compact figure with about three significant digits: `0.0512`,
/// `12.3`, `800`, `3.05k`, `600k`, `2.45M`.
fn format_value(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return "0".into();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    let a = v.abs();
    const SUFFIXES: [(f64, &str); 5] =
        [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    // Choose the suffix after rounding, so 999.96 becomes `1k`, not `1000`.
    let rounded = round_sig(a, 3);
    let (scaled, suffix) = SUFFIXES
        .iter()
        .find(|(s, _)| rounded >= *s)
        .map(|&(s, suffix)| (rounded / s, suffix))
        .unwrap_or((rounded, ""));
    let digits = scaled.abs().log10().floor() as i32;
    let decimals = (2 - digits).max(0) as usize;
    let mut text = format!("{scaled:.decimals$}");
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    format!("{sign}{text}{suffix}")
}

/// A value in its unit: `12.3 s`, `2.1 GB` (from KB), `×1.52`.
fn format_unit(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Plain => format_value(v),
        Unit::Seconds => format!("{} s", format_value(v)),
        Unit::Ratio => format!("×{}", format_value(v)),
        Unit::Kb => {
            let (scaled, name) = if v >= 1024.0 * 1024.0 * 0.9995 {
                (v / (1024.0 * 1024.0), "GB")
            } else if v >= 1024.0 * 0.9995 {
                (v / 1024.0, "MB")
            } else {
                (v, "KB")
            };
            // 1020 MB, not "1.02k MB": below 1024 of a unit, whole ones.
            if round_sig(scaled, 3) >= 1000.0 {
                format!("{scaled:.0} {name}")
            } else {
                format!("{} {name}", format_value(scaled))
            }
        }
    }
}

fn round_sig(a: f64, sig: i32) -> f64 {
    let digits = a.log10().floor() as i32;
    let factor = 10f64.powi(sig - 1 - digits);
    (a * factor).round() / factor
}

/// Estimated width of `text` at `size` px in a sans-serif font.
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// Text made safe for XML content and attribute values: inert first
/// (crates/document/src/inert.rs: escape sequences and control characters, invalid in
/// XML, removed; bounded), then escaped.
fn esc(text: &str) -> String {
    let text = crate::inert::text(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Splits `text` into lines no wider than `width` at `size` px, at spaces
/// (a single word longer than a line stays whole).
fn wrap(text: &str, width: f64, size: f64) -> Vec<String> {
    let max_chars = ((width / (size * 0.6)).floor() as usize).max(10);
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max_chars {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    lines
}

/// The text after a drawn bar: its value, and a flagged bar's label.
fn value_text(bar: &Bar, unit: Unit) -> (String, Option<&str>) {
    let value = bar.value.map(|v| format_unit(v, unit)).unwrap_or_default();
    let flag = match bar.mark {
        Mark::Flagged => Some(bar.label.as_deref().unwrap_or("flagged")),
        _ => None,
    };
    (value, flag)
}

/// Text in a slot without a bar.
fn missing_text(bar: &Bar) -> &str {
    match (&bar.label, bar.mark) {
        (Some(l), _) => l,
        (None, Mark::Failed) => "FAILED",
        (None, _) => "no value",
    }
}

/// Width of the text after a bar (value, gap, flag label), or of the text
/// standing in for a missing bar.
fn slot_text_width(bar: &Bar, unit: Unit) -> f64 {
    if drawn_value(bar).is_some() {
        let (value, flag) = value_text(bar, unit);
        text_width(&value, SMALL_FONT) + flag.map_or(0.0, |f| TEXT_PAD + text_width(f, SMALL_FONT))
    } else {
        text_width(missing_text(bar), SMALL_FONT)
    }
}

fn fmt(v: f64) -> String {
    // Most coordinates are whole or halves, whose one-decimal text is exact
    // and needs no rounding: written from the integer, without the float
    // formatter's exact mode (its bignum fallback was a visible part of the
    // charts' cost at 6,500 variants, issue #41). Anything else, and -0,
    // as before.
    let twice = v * 2.0;
    if twice.fract() == 0.0 && twice.abs() < 1e15 && !(v == 0.0 && v.is_sign_negative()) {
        let t = twice as i64;
        let whole = t / 2;
        return match t % 2 {
            0 => whole.to_string(),
            _ if t < 0 && whole == 0 => "-0.5".to_string(),
            _ => format!("{whole}.5"),
        };
    }
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Lighter version of a `#rrggbb` colour, mixed with white.
fn lighten(hex: &str, amount: f64) -> String {
    let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0) as f64;
    let mix = |c: f64| (c + (255.0 - c) * amount).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(channel(1)),
        mix(channel(3)),
        mix(channel(5))
    )
}

fn series_colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Bars per row: the most any row has, at least one per named series.
fn series_count(chart: &BarChart) -> usize {
    chart
        .rows
        .iter()
        .map(|r| r.bars.len())
        .chain([chart.series.len(), 1])
        .max()
        .unwrap_or(1)
}

/// The widest text of a bar slot, drawn bars' (`drawn`) or the others',
/// and at least `floor`.
fn widest_slot_text(chart: &BarChart, drawn: bool, floor: f64) -> f64 {
    chart
        .rows
        .iter()
        .flat_map(|r| &r.bars)
        .filter(|b| drawn_value(b).is_some() == drawn)
        .map(|b| slot_text_width(b, chart.unit))
        .fold(floor, f64::max)
}

/// Left and right of the plot, and the image's width: the row labels'
/// gutter (none on a phone, where labels sit above their bars), the plot
/// at least its minimum wide, and room after it for the values.
fn columns(chart: &BarChart, narrow: bool) -> (f64, f64, f64) {
    let gutter = if narrow {
        0.0
    } else {
        chart
            .rows
            .iter()
            .map(|r| text_width(&r.label, FONT))
            .fold(30.0f64, f64::max)
            + 10.0
    };
    let after_bars = widest_slot_text(chart, true, 30.0) + TEXT_PAD + 6.0;
    // Failed labels start at the axis and must fit in the plot.
    let failed_w = widest_slot_text(chart, false, 0.0) + 2.0 * TEXT_PAD;
    let plot_x0 = MARGIN + gutter;
    let (nominal, min_plot) = if narrow {
        (NARROW_WIDTH, NARROW_MIN_PLOT_W)
    } else {
        (WIDTH, MIN_PLOT_W)
    };
    let plot_w_nominal = nominal - MARGIN - after_bars - plot_x0;
    let plot_w = plot_w_nominal.max(min_plot).max(failed_w);
    let width = (plot_x0 + plot_w + after_bars + MARGIN).ceil();
    (plot_x0, plot_x0 + plot_w, width)
}

/// The legend's entries (text, colour, flagged style): the series, when
/// there are several, and the flagged style, when a bar has it.
fn legend_entries(chart: &BarChart, series: usize) -> Vec<(String, String, bool)> {
    let mut entries: Vec<(String, String, bool)> = Vec::new();
    if series > 1 {
        for i in 0..series {
            let name = chart
                .series
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("series {}", i + 1));
            entries.push((name, series_colour(i).to_string(), false));
        }
    }
    let any = |m: Mark| chart.rows.iter().flat_map(|r| &r.bars).any(|b| b.mark == m);
    if any(Mark::Flagged) {
        entries.push(("flagged (see its label)".into(), "#888888".into(), true));
    }
    entries
}

/// The legend's entries placed from `y` down, wrapped to `width`; `y`
/// ends below the legend.
fn place_legend(entries: Vec<(String, String, bool)>, width: f64, y: &mut f64) -> Vec<LegendItem> {
    let mut legend = Vec::new();
    if entries.is_empty() {
        return legend;
    }
    *y += 6.0;
    let mut x = MARGIN;
    for (text, colour, flagged) in entries {
        let w = 14.0 + 5.0 + text_width(&text, SMALL_FONT) + 16.0;
        if x > MARGIN && x + w > width - MARGIN {
            x = MARGIN;
            *y += 18.0;
        }
        legend.push(LegendItem {
            text,
            colour,
            flagged,
            x,
            y: *y,
        });
        x += w;
    }
    *y += 18.0;
    legend
}

/// The baseline of tick labels above a plot `rows_h` tall (only a tall one
/// gets them), and `y` moved down to the plot's top.
fn top_ticks(rows_h: f64, y: &mut f64) -> Option<f64> {
    if rows_h > TALL {
        *y += 16.0;
        let baseline = *y - 4.0;
        *y += 4.0;
        Some(baseline)
    } else {
        *y += 6.0;
        None
    }
}

/// What goes below the plot (tick labels, the axis caption, the legend
/// again when `legend_again`, the caption): how far down the legend is
/// repeated, and the image's height.
fn below_plot(
    chart: &BarChart,
    plot_y1: f64,
    legend_again: bool,
    legend: &[LegendItem],
    caption_lines: &[String],
) -> (Option<f64>, f64) {
    // Tick marks and labels, the axis caption.
    let mut y = plot_y1 + 4.0 + 14.0;
    if !chart.axis.is_empty() {
        y += 18.0;
    }
    let bottom_legend_dy = match (legend.first(), legend.last()) {
        (Some(first), Some(last)) if legend_again => {
            y += 8.0;
            let dy = y - first.y;
            y += last.y - first.y + 18.0;
            Some(dy)
        }
        _ => None,
    };
    if !caption_lines.is_empty() {
        y += 8.0 + caption_lines.len() as f64 * 15.0;
    }
    (bottom_legend_dy, (y + MARGIN).ceil())
}

/// One legend entry: a swatch and its text.
struct LegendItem {
    text: String,
    colour: String,
    flagged: bool,
    x: f64,
    y: f64,
}

/// One bar's slot in its row's group: its series, the attributes that
/// name it, who it is in a tooltip, its top and its text's baseline.
struct Slot {
    series: usize,
    attrs: String,
    who: String,
    y: f64,
    text_y: String,
}

/// Where everything goes.
struct Layout {
    width: f64,
    height: f64,
    scale: Scale,
    series: usize,
    title_lines: Vec<String>,
    legend: Vec<LegendItem>,
    /// Baseline of tick labels above the plot, if the plot is tall.
    top_ticks_y: Option<f64>,
    /// How far down the legend is drawn again below the axis, if the plot
    /// is tall (the top one has scrolled out of view by the last rows).
    bottom_legend_dy: Option<f64>,
    plot_x0: f64,
    plot_x1: f64,
    plot_y0: f64,
    plot_y1: f64,
    group_h: f64,
    pitch: f64,
    caption_lines: Vec<String>,
    unit: Unit,
    /// Height of a row's label above its bars (phone variant), else 0.
    label_above: f64,
}

impl Layout {
    fn new(chart: &BarChart, framed: bool) -> Layout {
        Layout::new_with(chart, framed, false)
    }

    fn new_with(chart: &BarChart, framed: bool, narrow: bool) -> Layout {
        let unit = chart.unit;
        let series = series_count(chart);
        let (plot_x0, plot_x1, width) = columns(chart, narrow);
        let inner_w = width - 2.0 * MARGIN;

        let mut y = MARGIN;
        let title_lines = if framed {
            wrap(&chart.title, inner_w, TITLE_FONT)
        } else {
            Vec::new()
        };
        y += title_lines.len() as f64 * (TITLE_FONT + 4.0);
        let legend = place_legend(legend_entries(chart, series), width, &mut y);

        let group_gap = if series > 1 {
            GROUP_GAP_MULTI
        } else {
            GROUP_GAP_SINGLE
        };
        let group_h = series as f64 * BAR_H + (series - 1) as f64 * BAR_GAP;
        let label_above = if narrow { LABEL_ABOVE } else { 0.0 };
        let pitch = group_h + group_gap + label_above;
        let rows_h = chart.rows.len().max(1) as f64 * pitch;

        let top_ticks_y = top_ticks(rows_h, &mut y);
        let plot_y0 = y;
        let plot_y1 = plot_y0 + rows_h;
        let caption_lines = if framed {
            wrap(&chart.caption, inner_w, SMALL_FONT)
        } else {
            Vec::new()
        };
        let (bottom_legend_dy, height) = below_plot(
            chart,
            plot_y1,
            top_ticks_y.is_some() && series > 1,
            &legend,
            &caption_lines,
        );

        Layout {
            width,
            height,
            scale: Scale::new(chart),
            series,
            title_lines,
            legend,
            top_ticks_y,
            bottom_legend_dy,
            plot_x0,
            plot_x1,
            plot_y0,
            plot_y1,
            group_h,
            pitch,
            caption_lines,
            unit,
            label_above,
        }
    }

    fn x_of(&self, fraction: f64) -> f64 {
        self.plot_x0 + fraction * (self.plot_x1 - self.plot_x0)
    }

    /// Top of row `row`'s group of bars (below its label, if above).
    fn group_top(&self, row: usize) -> f64 {
        self.plot_y0
            + row as f64 * self.pitch
            + self.label_above
            + (self.pitch - self.label_above - self.group_h) / 2.0
    }

    fn write(&self, chart: &BarChart, out: &mut String) {
        let (w, h) = (fmt(self.width), fmt(self.height));
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" \
             font-size=\"{FONT}\" fill=\"{TEXT_COLOUR}\">"
        );
        let _ = writeln!(out, "<title>{}</title>", esc(&chart.title));
        let _ = writeln!(
            out,
            "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        );
        self.write_title(out);
        self.write_legend(out, 0.0);
        self.write_grid(out);
        self.write_rows(chart, out);
        self.write_axis(chart, out);
        if let Some(dy) = self.bottom_legend_dy {
            self.write_legend(out, dy);
        }
        self.write_caption(out);
        out.push_str("</svg>\n");
    }

    fn write_title(&self, out: &mut String) {
        for (i, line) in self.title_lines.iter().enumerate() {
            let y = MARGIN + TITLE_FONT + i as f64 * (TITLE_FONT + 4.0) - 2.0;
            let _ = writeln!(
                out,
                "<text class=\"title\" x=\"{}\" y=\"{}\" font-size=\"{TITLE_FONT}\" \
                 font-weight=\"bold\">{}</text>",
                fmt(MARGIN),
                fmt(y),
                esc(line)
            );
        }
    }

    /// The legend, `dy` below its place under the title.
    fn write_legend(&self, out: &mut String, dy: f64) {
        if self.legend.is_empty() {
            return;
        }
        if dy == 0.0 {
            out.push_str("<g class=\"legend\">\n");
        } else {
            out.push_str("<g class=\"legend bottom\">\n");
        }
        for item in &self.legend {
            let style = if item.flagged {
                format!(
                    "fill=\"{}\" stroke=\"{}\" stroke-dasharray=\"3 2\"",
                    lighten(&item.colour, 0.6),
                    item.colour
                )
            } else {
                format!("fill=\"{}\"", item.colour)
            };
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" {style}/>\
                 <text x=\"{}\" y=\"{}\" font-size=\"{SMALL_FONT}\">{}</text>",
                fmt(item.x),
                fmt(item.y + dy),
                fmt(item.x + 19.0),
                fmt(item.y + dy + 10.0),
                esc(&item.text)
            );
        }
        out.push_str("</g>\n");
    }

    fn write_grid(&self, out: &mut String) {
        let (y0, y1) = (fmt(self.plot_y0), fmt(self.plot_y1));
        out.push_str("<g class=\"grid\">\n");
        for v in self.scale.minor_ticks(self.unit) {
            if let Some(f) = self.scale.fraction(v) {
                let x = fmt(self.x_of(f));
                let _ = writeln!(
                    out,
                    "<line x1=\"{x}\" y1=\"{y0}\" x2=\"{x}\" y2=\"{y1}\" stroke=\"{MINOR_GRID_COLOUR}\"/>"
                );
            }
        }
        for (v, _) in self.scale.ticks(self.plot_x1 - self.plot_x0, self.unit) {
            if let Some(f) = self.scale.fraction(v) {
                let x = fmt(self.x_of(f));
                let _ = writeln!(
                    out,
                    "<line x1=\"{x}\" y1=\"{y0}\" x2=\"{x}\" y2=\"{y1}\" stroke=\"{GRID_COLOUR}\"/>"
                );
            }
        }
        out.push_str("</g>\n");
    }

    fn write_rows(&self, chart: &BarChart, out: &mut String) {
        for (r, row) in chart.rows.iter().enumerate() {
            let _ = writeln!(out, "<g class=\"row\" data-row=\"{r}\">");
            // Alternate bands tell groups apart when they hold several bars.
            if self.series > 1 && r % 2 == 1 {
                let _ = writeln!(
                    out,
                    "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{BAND_COLOUR}\"/>",
                    fmt(MARGIN),
                    fmt(self.plot_y0 + r as f64 * self.pitch),
                    fmt(self.width - 2.0 * MARGIN),
                    fmt(self.pitch)
                );
            }
            let top = self.group_top(r);
            if self.label_above > 0.0 {
                // Above the bars, cut to the image's width (the full label
                // is the row's tooltip).
                let max = ((self.width - 2.0 * MARGIN) / (FONT * 0.6)).floor() as usize;
                let label = if row.label.chars().count() > max {
                    let cut: String = row.label.chars().take(max.saturating_sub(1)).collect();
                    format!("{cut}…")
                } else {
                    row.label.clone()
                };
                let _ = writeln!(
                    out,
                    "<text class=\"row-label\" x=\"{}\" y=\"{}\"><title>{}</title>{}</text>",
                    fmt(self.plot_x0),
                    fmt(top - 4.0),
                    esc(&row.label),
                    esc(&label)
                );
            } else {
                let _ = writeln!(
                    out,
                    "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                    fmt(self.plot_x0 - 8.0),
                    fmt(top + self.group_h / 2.0 + FONT * 0.35),
                    esc(&row.label)
                );
            }
            for (s, bar) in row.bars.iter().enumerate() {
                let series_name = chart.series.get(s).map(String::as_str).unwrap_or("");
                self.write_bar(r, s, &row.label, series_name, bar, top, out);
            }
            out.push_str("</g>\n");
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_bar(
        &self,
        row: usize,
        series: usize,
        row_label: &str,
        series_name: &str,
        bar: &Bar,
        group_top: f64,
        out: &mut String,
    ) {
        let y = group_top + series as f64 * (BAR_H + BAR_GAP);
        let who = if series_name.is_empty() {
            row_label.to_string()
        } else {
            format!("{row_label} / {series_name}")
        };
        let slot = Slot {
            series,
            attrs: format!("data-row=\"{row}\" data-series=\"{series}\""),
            who,
            y,
            text_y: fmt(y + BAR_H / 2.0 + SMALL_FONT * 0.35),
        };
        match drawn_value(bar).and_then(|v| self.scale.fraction(v)) {
            Some(fraction) => self.write_drawn_bar(&slot, bar, fraction, out),
            None => self.write_missing_bar(&slot, bar, out),
        }
    }

    /// No bar: the reason, at the start of the axis, in the slot.
    fn write_missing_bar(&self, slot: &Slot, bar: &Bar, out: &mut String) {
        let colour = if bar.mark == Mark::Failed {
            FAILED_COLOUR
        } else {
            MUTED_COLOUR
        };
        let text = match (drawn_value(bar), &bar.label) {
            // A value the axis cannot show (≤ 0 on a log scale).
            (Some(v), None) => format_unit(v, self.unit),
            (Some(v), Some(l)) => format!("{} {l}", format_unit(v, self.unit)),
            (None, _) => missing_text(bar).to_string(),
        };
        let class = if bar.mark == Mark::Failed {
            "failed"
        } else {
            "missing"
        };
        let _ = writeln!(
            out,
            "<text class=\"{class}\" {} x=\"{}\" y=\"{}\" font-size=\"{SMALL_FONT}\" \
             font-weight=\"bold\" fill=\"{colour}\"><title>{}</title>{}</text>",
            slot.attrs,
            fmt(self.plot_x0 + TEXT_PAD),
            slot.text_y,
            esc(&format!("{}: {text}", slot.who)),
            esc(&text)
        );
    }

    /// A bar `fraction` of the plot long, its whiskers and its value.
    fn write_drawn_bar(&self, slot: &Slot, bar: &Bar, fraction: f64, out: &mut String) {
        // Every drawn bar is at least a sliver long.
        let width = (fraction * (self.plot_x1 - self.plot_x0)).max(1.0);
        let (value, flag) = value_text(bar, self.unit);
        // Whiskers: the fastest to the slowest run.
        let whisker = bar
            .range
            .filter(|(lo, hi)| hi > lo)
            .and_then(|(lo, hi)| Some((self.scale.fraction(lo)?, self.scale.fraction(hi)?)));
        let whisker_end = whisker.map_or(0.0, |(_, b)| b * (self.plot_x1 - self.plot_x0));
        self.write_bar_rect(slot, bar, width, &value, flag, out);
        if let Some((a, b)) = whisker {
            self.write_whisker(slot, a, b, out);
        }
        let _ = write!(
            out,
            "<text class=\"value\" {} x=\"{}\" y=\"{}\" font-size=\"{SMALL_FONT}\">{}",
            slot.attrs,
            fmt(self.plot_x0 + width.max(whisker_end) + TEXT_PAD),
            slot.text_y,
            esc(&value)
        );
        if let Some(f) = flag {
            let _ = write!(
                out,
                "<tspan class=\"flag\" dx=\"{TEXT_PAD}\" fill=\"{FLAG_COLOUR}\" font-style=\"italic\">{}</tspan>",
                esc(f)
            );
        }
        out.push_str("</text>\n");
    }

    /// The bar itself, `width` long, in its series' colour (dashed and
    /// lighter when flagged), with its tooltip.
    fn write_bar_rect(
        &self,
        slot: &Slot,
        bar: &Bar,
        width: f64,
        value: &str,
        flag: Option<&str>,
        out: &mut String,
    ) {
        let colour = series_colour(slot.series);
        let (class, style) = if bar.mark == Mark::Flagged {
            (
                "bar flagged",
                format!(
                    "fill=\"{}\" stroke=\"{colour}\" stroke-width=\"1.2\" stroke-dasharray=\"4 2\"",
                    lighten(colour, 0.6)
                ),
            )
        } else {
            ("bar", format!("fill=\"{colour}\""))
        };
        let range = bar
            .range
            .filter(|(lo, hi)| hi > lo)
            .map(|(lo, hi)| {
                format!(
                    ", runs {}–{}",
                    format_unit(lo, self.unit),
                    format_unit(hi, self.unit)
                )
            })
            .unwrap_or_default();
        let who = &slot.who;
        let tip = match flag {
            Some(f) => format!("{who}: {value} ({f}){range}"),
            None => format!("{who}: {value}{range}"),
        };
        // A dashed outline is drawn half outside the rect: keep it inside.
        let inset = if flag.is_some() { 0.6 } else { 0.0 };
        let _ = writeln!(
            out,
            "<rect class=\"{class}\" {} x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {style}>\
             <title>{}</title></rect>",
            slot.attrs,
            fmt(self.plot_x0 + inset),
            fmt(slot.y + inset),
            fmt((width - 2.0 * inset).max(1.0)),
            fmt(BAR_H - 2.0 * inset),
            esc(&tip)
        );
    }

    /// The whiskers from fraction `a` to `b` of the plot, across the bar's
    /// middle.
    fn write_whisker(&self, slot: &Slot, a: f64, b: f64, out: &mut String) {
        let (x0, x1) = (self.x_of(a), self.x_of(b));
        let cy = slot.y + BAR_H / 2.0;
        let _ = writeln!(
            out,
            "<path class=\"whisker\" {} d=\"M{} {}H{}M{} {}V{}M{} {}V{}\" \
             stroke=\"{TEXT_COLOUR}\" stroke-width=\"1\" fill=\"none\"/>",
            slot.attrs,
            fmt(x0),
            fmt(cy),
            fmt(x1),
            fmt(x0),
            fmt(cy - 3.0),
            fmt(cy + 3.0),
            fmt(x1),
            fmt(cy - 3.0),
            fmt(cy + 3.0)
        );
    }

    fn write_axis(&self, chart: &BarChart, out: &mut String) {
        out.push_str("<g class=\"axis\">\n");
        let y1 = self.plot_y1;
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>",
            fmt(self.plot_x0),
            fmt(self.plot_y0),
            fmt(self.plot_x0),
            fmt(y1)
        );
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>",
            fmt(self.plot_x0),
            fmt(y1),
            fmt(self.plot_x1),
            fmt(y1)
        );
        for (v, label) in self.scale.ticks(self.plot_x1 - self.plot_x0, self.unit) {
            let Some(f) = self.scale.fraction(v) else {
                continue;
            };
            // A label centred on a tick at either edge would be cut off.
            let half = text_width(&label, SMALL_FONT) / 2.0;
            let anchor = if self.x_of(f) - half < 1.0 {
                "start"
            } else if self.x_of(f) + half > self.width - 1.0 {
                "end"
            } else {
                "middle"
            };
            let x = fmt(self.x_of(f));
            let _ = writeln!(
                out,
                "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#888\"/>\
                 <text class=\"tick\" x=\"{x}\" y=\"{}\" text-anchor=\"{anchor}\" \
                 font-size=\"{SMALL_FONT}\" fill=\"{MUTED_COLOUR}\">{}</text>",
                fmt(y1),
                fmt(y1 + 4.0),
                fmt(y1 + 4.0 + 12.0),
                esc(&label)
            );
            if let Some(ty) = self.top_ticks_y {
                let _ = writeln!(
                    out,
                    "<text class=\"tick top\" x=\"{x}\" y=\"{}\" text-anchor=\"{anchor}\" \
                     font-size=\"{SMALL_FONT}\" fill=\"{MUTED_COLOUR}\">{}</text>",
                    fmt(ty),
                    esc(&label)
                );
            }
        }
        if !chart.axis.is_empty() {
            let _ = writeln!(
                out,
                "<text class=\"axis-caption\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                fmt((self.plot_x0 + self.plot_x1) / 2.0),
                fmt(y1 + 4.0 + 14.0 + 16.0),
                esc(&chart.axis)
            );
        }
        out.push_str("</g>\n");
    }

    fn write_caption(&self, out: &mut String) {
        let mut y = self.height - MARGIN - self.caption_lines.len() as f64 * 15.0 + 11.0;
        for line in &self.caption_lines {
            let _ = writeln!(
                out,
                "<text class=\"caption\" x=\"{}\" y=\"{}\" font-size=\"{SMALL_FONT}\" \
                 fill=\"{MUTED_COLOUR}\">{}</text>",
                fmt(MARGIN),
                fmt(y),
                esc(line)
            );
            y += 15.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BarRow;
    use roxmltree::{Document, Node};

    fn bar(v: f64) -> Bar {
        Bar::plain(v)
    }

    /// `fmt`'s whole-and-half fast path writes what the float formatter
    /// writes, for every sign, size and the edge values.
    #[test]
    fn fmt_is_the_formatters_one_decimal() {
        let slow = |v: f64| {
            let s = format!("{v:.1}");
            s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
        };
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            0.25,
            -0.25,
            0.05,
            0.15,
            1e15,
            -1e15,
            4.5e15,
            1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        for i in -4000..4000 {
            values.push(i as f64 / 8.0);
            values.push(i as f64 * 0.1);
            values.push(i as f64 * 1234.5);
            values.push(i as f64 / 3.0);
        }
        for v in values {
            assert_eq!(fmt(v), slow(v), "{v:?}");
        }
    }

    fn failed(label: &str) -> Bar {
        Bar {
            value: None,
            mark: Mark::Failed,
            label: Some(label.into()),
            ..Default::default()
        }
    }

    fn flagged(v: f64, label: &str) -> Bar {
        Bar {
            value: Some(v),
            mark: Mark::Flagged,
            label: Some(label.into()),
            ..Default::default()
        }
    }

    fn chart(log: bool, series: &[&str], rows: Vec<(&str, Vec<Bar>)>) -> BarChart {
        BarChart {
            id: "test".into(),
            title: "Time per variant".into(),
            axis: if log {
                "seconds (log scale)".into()
            } else {
                "seconds".into()
            },
            log,
            series: series.iter().map(|s| s.to_string()).collect(),
            rows: rows
                .into_iter()
                .map(|(label, bars)| BarRow {
                    label: label.into(),
                    bars,
                })
                .collect(),
            caption: "Flagged bars did not exit cleanly; failed ones have no bar.".into(),
            ..Default::default()
        }
    }

    fn has_class(n: &Node, class: &str) -> bool {
        n.attribute("class")
            .is_some_and(|c| c.split_whitespace().any(|c| c == class))
    }

    fn with_class<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
        doc.descendants().filter(|n| has_class(n, class)).collect()
    }

    fn num(n: &Node, attr: &str) -> f64 {
        n.attribute(attr)
            .unwrap_or_else(|| panic!("no {attr} on {n:?}"))
            .parse()
            .unwrap()
    }

    /// All text under a node, tspans included, without `<title>` tooltips.
    fn text_of(n: &Node) -> String {
        n.descendants()
            .filter(|d| d.is_text() && d.parent().is_some_and(|p| !p.has_tag_name("title")))
            .map(|d| d.text().unwrap_or(""))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn slot<'a, 'i>(doc: &'a Document<'i>, row: usize, series: usize) -> Vec<Node<'a, 'i>> {
        let (r, s) = (row.to_string(), series.to_string());
        doc.descendants()
            .filter(|n| {
                n.attribute("data-row") == Some(r.as_str())
                    && n.attribute("data-series") == Some(s.as_str())
            })
            .collect()
    }

    /// Parse a number as written on a tick (`0.01`, `1k`, `10M`).
    fn parse_compact(s: &str) -> f64 {
        let (digits, factor) = match s.chars().last() {
            Some('k') => (&s[..s.len() - 1], 1e3),
            Some('M') => (&s[..s.len() - 1], 1e6),
            Some('G') => (&s[..s.len() - 1], 1e9),
            _ => (s, 1.0),
        };
        digits.parse::<f64>().unwrap() * factor
    }

    fn three_series_sample() -> BarChart {
        let mut rows = Vec::new();
        for i in 0..20 {
            let base = 0.05 * 1.6f64.powi(i);
            let label = match i {
                0 => "C (gcc -O2)".to_string(),
                1 => "C++ (g++ -O2)".to_string(),
                2 => "C# (mcs -optimize+ + mono)".to_string(),
                3 => "JavaScript (~/.esvu/bin/v8)".to_string(),
                _ => format!("variant number {i}"),
            };
            let bars = match i {
                4 => vec![failed("FAILED (exit 1)"), bar(base * 2.0), bar(base * 3.0)],
                7 => vec![bar(base), flagged(base * 1.5, "exit 25"), failed("not run")],
                11 => vec![
                    failed("DID NOT FINISH"),
                    failed("not run"),
                    failed("not run"),
                ],
                13 => vec![
                    flagged(base, "partial"),
                    bar(base * 2.0),
                    flagged(base, "N differs"),
                ],
                _ => vec![bar(base), bar(base * 1.7), bar(base * 2.9)],
            };
            rows.push((label, bars));
        }
        let rows = rows.iter().map(|(l, b)| (l.as_str(), b.clone())).collect();
        chart(true, &["assoc", "num-comb", "str-comb"], rows)
    }

    fn sixty_rows() -> BarChart {
        let labels: Vec<String> = (0..60)
            .map(|i| format!("language {i} ({})", "x".repeat(i % 23)))
            .collect();
        let rows = labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let b = match i {
                    5 => failed("FAILED (exit 1)"),
                    9 => flagged(42.0, "exit 25"),
                    _ => bar(0.05 * 1.13f64.powi(i as i32)),
                };
                (l.as_str(), vec![b])
            })
            .collect();
        chart(true, &["total"], rows)
    }

    #[test]
    fn is_a_standalone_svg_document() {
        let svg = render(&three_series_sample());
        let doc = Document::parse(&svg).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        let (w, h) = (num(&root, "width"), num(&root, "height"));
        assert!((900.0..=1100.0).contains(&w), "width {w}");
        assert_eq!(
            root.attribute("viewBox").unwrap(),
            format!("0 0 {} {}", fmt(w), fmt(h))
        );
        // Everything drawn lies inside the image.
        for n in doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") || n.has_tag_name("text"))
        {
            if let (Some(x), Some(y)) = (n.attribute("x"), n.attribute("y")) {
                let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                assert!((0.0..=w).contains(&x) && (0.0..=h).contains(&y), "{n:?}");
            }
        }
        let title = with_class(&doc, "title");
        assert_eq!(text_of(&title[0]), "Time per variant");
        let legend: Vec<String> = doc
            .descendants()
            .filter(|n| has_class(n, "legend"))
            .flat_map(|g| g.children().filter(|c| c.has_tag_name("text")))
            .map(|t| text_of(&t))
            .collect();
        for s in ["assoc", "num-comb", "str-comb"] {
            assert!(legend.iter().any(|l| l == s), "legend {legend:?}");
        }
        assert!(svg.contains("seconds (log scale)"));
        assert!(svg.contains("failed ones have no bar"));
    }

    #[test]
    fn single_series_without_flags_has_no_legend() {
        let c = chart(
            false,
            &["total"],
            vec![("a", vec![bar(1.0)]), ("b", vec![bar(2.0)])],
        );
        let svg = render(&c);
        let doc = Document::parse(&svg).unwrap();
        assert!(with_class(&doc, "legend").is_empty());
        assert_eq!(with_class(&doc, "bar").len(), 2);
    }

    #[test]
    fn failed_bar_has_no_rect_but_its_label_in_red() {
        let svg = render(&three_series_sample());
        let doc = Document::parse(&svg).unwrap();
        let nodes = slot(&doc, 4, 0);
        assert!(
            nodes.iter().all(|n| !n.has_tag_name("rect")),
            "failed slot has a bar: {nodes:?}"
        );
        let text = nodes
            .iter()
            .find(|n| has_class(n, "failed"))
            .expect("failed text");
        assert_eq!(text_of(text), "FAILED (exit 1)");
        assert_eq!(text.attribute("fill"), Some(FAILED_COLOUR));
        // At the start of the axis, on its own slot's line, one bar above
        // the row's other two (compare baselines of their value texts).
        let value_y = |s| {
            let nodes = slot(&doc, 4, s);
            num(nodes.iter().find(|n| has_class(n, "value")).unwrap(), "y")
        };
        let y = num(text, "y");
        assert!((value_y(1) - y - (BAR_H + BAR_GAP)).abs() < 0.2, "{y}");
        assert!(
            (value_y(2) - y - 2.0 * (BAR_H + BAR_GAP)).abs() < 0.2,
            "{y}"
        );
        let plain = slot(&doc, 4, 1);
        let bar_x = num(plain.iter().find(|n| n.has_tag_name("rect")).unwrap(), "x");
        assert!((num(text, "x") - bar_x).abs() < 10.0);
        // A row with every bar failed draws three texts and no bar.
        let row11: Vec<_> = (0..3).flat_map(|s| slot(&doc, 11, s)).collect();
        assert_eq!(row11.iter().filter(|n| n.has_tag_name("rect")).count(), 0);
        let texts: Vec<String> = row11.iter().map(text_of).collect();
        assert_eq!(texts, ["DID NOT FINISH", "not run", "not run"]);
        // 20 rows × 3 series, 5 failed.
        assert_eq!(with_class(&doc, "bar").len(), 55);
        assert_eq!(with_class(&doc, "failed").len(), 5);
    }

    #[test]
    fn no_bar_is_zero_length() {
        for c in [three_series_sample(), sixty_rows()] {
            let svg = render(&c);
            let doc = Document::parse(&svg).unwrap();
            for b in with_class(&doc, "bar") {
                assert!(num(&b, "width") >= 1.0, "{b:?}");
            }
        }
        // The smallest value on a log axis is not at its very bottom.
        let c = chart(
            true,
            &[],
            vec![("a", vec![bar(1.0)]), ("b", vec![bar(100.0)])],
        );
        let doc_text = render(&c);
        let doc = Document::parse(&doc_text).unwrap();
        let widths: Vec<f64> = with_class(&doc, "bar")
            .iter()
            .map(|b| num(b, "width"))
            .collect();
        assert!(
            widths[0] > 50.0 && widths[1] > widths[0] * 2.0,
            "{widths:?}"
        );
    }

    #[test]
    fn flagged_bar_looks_different_and_carries_its_label() {
        let svg = render(&three_series_sample());
        let doc = Document::parse(&svg).unwrap();
        let flagged_rect = slot(&doc, 7, 1)
            .into_iter()
            .find(|n| n.has_tag_name("rect"))
            .unwrap();
        let plain_rect = slot(&doc, 7, 0)
            .into_iter()
            .find(|n| n.has_tag_name("rect"))
            .unwrap();
        assert!(has_class(&flagged_rect, "flagged"));
        assert!(!has_class(&plain_rect, "flagged"));
        assert!(flagged_rect.attribute("stroke-dasharray").is_some());
        assert!(plain_rect.attribute("stroke-dasharray").is_none());
        // Same series in another row, plain: another fill.
        let same_series_plain = slot(&doc, 6, 1)
            .into_iter()
            .find(|n| n.has_tag_name("rect"))
            .unwrap();
        assert_ne!(
            flagged_rect.attribute("fill"),
            same_series_plain.attribute("fill")
        );
        let value = slot(&doc, 7, 1)
            .into_iter()
            .find(|n| has_class(n, "value"))
            .unwrap();
        let text = text_of(&value);
        let v = 0.05 * 1.6f64.powi(7) * 1.5;
        assert!(text.starts_with(&format_value(v)), "{text}");
        assert!(text.ends_with("exit 25"), "{text}");
        // The value text starts after the bar's end.
        assert!(num(&value, "x") > num(&flagged_rect, "x") + num(&flagged_rect, "width"));
        // The legend explains the style.
        assert!(svg.contains("flagged (see its label)"));
    }

    #[test]
    fn log_ticks_cover_the_data() {
        let rows = vec![
            ("fast", vec![bar(0.05)]),
            ("mid", vec![bar(3.2)]),
            ("slow", vec![bar(800.0)]),
        ];
        let svg = render(&chart(true, &[], rows));
        let doc = Document::parse(&svg).unwrap();
        let ticks: Vec<String> = with_class(&doc, "tick").iter().map(text_of).collect();
        assert_eq!(ticks, ["0.01", "0.1", "1", "10", "100", "1k"]);
        let values: Vec<f64> = ticks.iter().map(|t| parse_compact(t)).collect();
        assert!(values[0] <= 0.05 && *values.last().unwrap() >= 800.0);
        // Ticks evenly spaced: one decade, one distance.
        let xs: Vec<f64> = with_class(&doc, "tick")
            .iter()
            .map(|t| num(t, "x"))
            .collect();
        let d: Vec<f64> = xs.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(d.iter().all(|x| (x - d[0]).abs() < 0.2), "{d:?}");
        // Bars: log widths, 0.05 → 3.2 → 800.
        let widths: Vec<f64> = with_class(&doc, "bar")
            .iter()
            .map(|b| num(b, "width"))
            .collect();
        let decade = d[0];
        assert!(((widths[1] - widths[0]) / decade - (3.2f64 / 0.05).log10()).abs() < 0.02);
        assert!(((widths[2] - widths[1]) / decade - (800.0f64 / 3.2).log10()).abs() < 0.02);
    }

    #[test]
    fn log_ticks_for_large_ranges() {
        let rows = vec![
            ("small", vec![bar(3_000.0)]),
            ("big", vec![bar(13_000_000.0)]),
        ];
        let svg = render(&chart(true, &[], rows));
        let doc = Document::parse(&svg).unwrap();
        let ticks: Vec<String> = with_class(&doc, "tick").iter().map(text_of).collect();
        // The axis ends at 20M, the first 1, 2 or 5 × a power of ten at
        // or above the longest bar, not at the next decade (100M).
        assert_eq!(ticks, ["1k", "10k", "100k", "1M", "10M", "20M"]);
        let bars: Vec<f64> = with_class(&doc, "bar")
            .iter()
            .map(|b| num(b, "width"))
            .collect();
        let ticks_x: Vec<f64> = with_class(&doc, "tick")
            .iter()
            .map(|t| num(t, "x"))
            .collect();
        // The longest bar ends between the last two ticks, near the end.
        let (x10m, x20m) = (ticks_x[4], ticks_x[5]);
        let bar_end = ticks_x[0] + bars[1];
        let at = (bar_end - x10m) / (x20m - x10m);
        assert!(
            (at - (1.3f64).log10() / 2f64.log10()).abs() < 0.05,
            "13M sits at {at} between 10M and 20M"
        );
    }

    #[test]
    fn linear_ticks_start_at_zero_and_cover_the_maximum() {
        let rows = vec![("a", vec![bar(12.0)]), ("b", vec![bar(47.0)])];
        let svg = render(&chart(false, &[], rows));
        let doc = Document::parse(&svg).unwrap();
        let ticks: Vec<f64> = with_class(&doc, "tick")
            .iter()
            .map(|t| parse_compact(&text_of(t)))
            .collect();
        assert_eq!(ticks, [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
        let widths: Vec<f64> = with_class(&doc, "bar")
            .iter()
            .map(|b| num(b, "width"))
            .collect();
        assert!(
            (widths[1] / widths[0] - 47.0 / 12.0).abs() < 0.01,
            "{widths:?}"
        );
    }

    #[test]
    fn sixty_rows_are_tall_enough_and_labels_do_not_collide() {
        let c = sixty_rows();
        let svg = render(&c);
        let doc = Document::parse(&svg).unwrap();
        let height = num(&doc.root_element(), "height");
        assert!(height >= 60.0 * 16.0, "height {height}");
        let mut ys: Vec<f64> = with_class(&doc, "row-label")
            .iter()
            .map(|t| num(t, "y"))
            .collect();
        assert_eq!(ys.len(), 60);
        ys.sort_by(f64::total_cmp);
        for w in ys.windows(2) {
            assert!(
                w[1] - w[0] >= FONT + 2.0,
                "labels {} and {} collide",
                w[0],
                w[1]
            );
        }
        // Labels end left of the plot; every bar and failed text starts in it.
        let plot_x0 = with_class(&doc, "bar")
            .iter()
            .map(|b| num(b, "x"))
            .fold(f64::INFINITY, f64::min);
        for l in with_class(&doc, "row-label") {
            assert_eq!(l.attribute("text-anchor"), Some("end"));
            let right = num(&l, "x");
            let left = right - text_width(&text_of(&l), FONT);
            assert!(right < plot_x0 && left >= 0.0, "{l:?}");
        }
        for f in with_class(&doc, "failed") {
            assert!(num(&f, "x") >= plot_x0);
        }
        // Tall: the ticks are repeated on top.
        assert!(!with_class(&doc, "top").is_empty());
    }

    #[test]
    fn three_series_groups_do_not_overlap() {
        let svg = render(&three_series_sample());
        let doc = Document::parse(&svg).unwrap();
        let mut spans: Vec<(f64, f64)> = with_class(&doc, "bar")
            .iter()
            .map(|b| (num(b, "y"), num(b, "y") + num(b, "height")))
            .collect();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in spans.windows(2) {
            assert!(w[1].0 >= w[0].1, "bars overlap: {w:?}");
        }
        // Value text does not run off the right edge.
        let width = num(&doc.root_element(), "width");
        for v in with_class(&doc, "value") {
            let right = num(&v, "x") + text_width(&text_of(&v), SMALL_FONT);
            assert!(right <= width, "{} ends at {right}", text_of(&v));
        }
    }

    #[test]
    fn special_characters_are_escaped() {
        let label = r#"C++ <g++ -O2> & "mono" 'x' ~/.esvu/bin/v8"#;
        let mut c = chart(
            false,
            &["a<b", "c&d"],
            vec![(label, vec![bar(1.0), failed("FAILED <&>")])],
        );
        c.title = "R&D <chart>".into();
        c.caption = "x < y & \"z\"".into();
        let svg = render(&c);
        assert!(!svg.contains("<g++") && !svg.contains("R&D"));
        let doc = Document::parse(&svg).unwrap();
        let row_label = &with_class(&doc, "row-label")[0];
        assert_eq!(text_of(row_label), label);
        assert_eq!(text_of(&with_class(&doc, "title")[0]), "R&D <chart>");
        assert_eq!(text_of(&with_class(&doc, "failed")[0]), "FAILED <&>");
        assert_eq!(text_of(&with_class(&doc, "caption")[0]), "x < y & \"z\"");
        assert!(svg.contains("a&lt;b") && svg.contains("c&amp;d"));
    }

    #[test]
    fn long_labels_widen_the_gutter_and_the_image() {
        let long =
            "a very long variant name that goes on and on (with flags -O3 -march=native -flto)";
        let c = chart(
            false,
            &[],
            vec![(long, vec![bar(1.0)]), ("b", vec![bar(2.0)])],
        );
        let svg = render(&c);
        let doc = Document::parse(&svg).unwrap();
        let bar_x = num(&with_class(&doc, "bar")[0], "x");
        assert!(bar_x > text_width(long, FONT));
        let bar_w = num(&with_class(&doc, "bar")[1], "width");
        assert!(bar_w >= MIN_PLOT_W - 1.0, "plot squeezed to {bar_w}");
    }

    #[test]
    fn empty_and_odd_charts_still_render() {
        for c in [
            chart(true, &[], vec![]),
            chart(false, &[], vec![]),
            chart(true, &["a", "b"], vec![("x", vec![failed("not run")])]),
            chart(
                true,
                &[],
                vec![("zero", vec![bar(0.0)]), ("one", vec![bar(1.0)])],
            ),
            chart(
                false,
                &[],
                vec![("nan", vec![bar(f64::NAN)]), ("zero", vec![bar(0.0)])],
            ),
        ] {
            let svg = render(&c);
            Document::parse(&svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
            assert!(!svg.contains("NaN") || c.rows.iter().any(|r| r.label == "nan"));
        }
        // A zero on a log axis is written, not drawn.
        let c = chart(
            true,
            &[],
            vec![("zero", vec![bar(0.0)]), ("one", vec![bar(1.0)])],
        );
        let svg = render(&c);
        let doc = Document::parse(&svg).unwrap();
        assert_eq!(with_class(&doc, "bar").len(), 1);
        assert_eq!(text_of(&with_class(&doc, "missing")[0]), "0");
    }

    #[test]
    fn figure_variant_leaves_title_and_caption_to_the_page() {
        let c = three_series_sample();
        let standalone = render(&c);
        let figure = render_figure(&c);
        let doc = Document::parse(&figure).unwrap();
        assert!(with_class(&doc, "title").is_empty(), "title drawn");
        assert!(with_class(&doc, "caption").is_empty(), "caption drawn");
        // Still named for tooltips and screen readers; bars all there.
        assert!(figure.contains(&format!("<title>{}</title>", esc(&c.title))));
        assert_eq!(with_class(&doc, "bar").len(), 55);
        // Shorter by the title and caption, no taller.
        let h = |svg: &str| num(&Document::parse(svg).unwrap().root_element(), "height");
        assert!(h(&figure) < h(&standalone) - TITLE_FONT);
        // The standalone file keeps both.
        let doc = Document::parse(&standalone).unwrap();
        assert_eq!(with_class(&doc, "title").len(), 1);
        assert!(!with_class(&doc, "caption").is_empty());
    }

    #[test]
    fn tall_multi_series_chart_repeats_its_legend_below() {
        for svg in [
            render(&three_series_sample()),
            render_figure(&three_series_sample()),
        ] {
            let doc = Document::parse(&svg).unwrap();
            let height = num(&doc.root_element(), "height");
            let bottom = with_class(&doc, "bottom")
                .into_iter()
                .find(|n| has_class(n, "legend"))
                .expect("no legend below the plot");
            let texts: Vec<String> = bottom
                .children()
                .filter(|c| c.has_tag_name("text"))
                .map(|t| text_of(&t))
                .collect();
            assert_eq!(texts[..3], ["assoc", "num-comb", "str-comb"]);
            let axis_y = with_class(&doc, "tick")
                .iter()
                .map(|t| num(t, "y"))
                .fold(0.0, f64::max);
            for t in bottom.children().filter(|c| c.has_tag_name("text")) {
                let y = num(&t, "y");
                assert!(y > axis_y && y <= height - MARGIN / 2.0, "{y} {height}");
            }
            // Not overlapping the caption, when there is one.
            for c in with_class(&doc, "caption") {
                assert!(num(&c, "y") > axis_y + 20.0);
            }
        }
        // A short or single-series chart draws one legend only.
        let short = chart(true, &["a", "b"], vec![("x", vec![bar(1.0), bar(2.0)])]);
        let doc_text = render(&short);
        let doc = Document::parse(&doc_text).unwrap();
        assert_eq!(with_class(&doc, "legend").len(), 1);
        let doc_text = render(&sixty_rows());
        let doc = Document::parse(&doc_text).unwrap();
        assert!(with_class(&doc, "legend").len() <= 1);
    }

    #[test]
    fn sixty_rows_by_three_series_stay_compact() {
        // The per-benchmark charts: 60 variants × 3 benchmarks.
        let rows: Vec<(String, Vec<Bar>)> = (0..60)
            .map(|i| {
                let v = 0.05 * 1.13f64.powi(i);
                (
                    format!("variant {i}"),
                    vec![bar(v), bar(v * 2.0), bar(v * 3.0)],
                )
            })
            .collect();
        let c = chart(
            true,
            &["assoc", "num-comb", "str-comb"],
            rows.iter().map(|(l, b)| (l.as_str(), b.clone())).collect(),
        );
        let svg = render_figure(&c);
        let doc = Document::parse(&svg).unwrap();
        let height = num(&doc.root_element(), "height");
        // 46 px a row (it was 56) plus axes and legends.
        assert!(height <= 60.0 * 46.0 + 300.0, "height {height}");
        // Value texts of neighbouring bars do not collide.
        let mut ys: Vec<f64> = with_class(&doc, "value")
            .iter()
            .map(|t| num(t, "y"))
            .collect();
        ys.sort_by(f64::total_cmp);
        assert!(
            ys.windows(2).all(|w| w[1] - w[0] >= SMALL_FONT),
            "value texts collide"
        );
    }

    /// No two tick labels of a RAM axis run together (issue #40: "50
    /// MB100 MB200 MB" on the 2026 page's RAM chart, whose RSS ran from
    /// 10 MB to 6 GB), and a figure just under 1024 MB is whole MB, not
    /// "1.02k MB".
    #[test]
    fn ram_tick_labels_keep_apart_and_mb_stay_whole() {
        let rows = vec![
            ("small", vec![bar(10_300.0)]),
            ("mid", vec![bar(300_000.0)]),
            ("big", vec![bar(6_260_000.0)]),
        ];
        let mut c = chart(true, &[], rows);
        c.unit = Unit::Kb;
        let svg = render(&c);
        let doc = Document::parse(&svg).unwrap();
        let ticks: Vec<(f64, f64, String)> = with_class(&doc, "tick")
            .iter()
            .filter(|t| !has_class(t, "top"))
            .map(|t| {
                let label = text_of(t);
                let w = text_width(&label, SMALL_FONT);
                let x = num(t, "x");
                let left = match t.attribute("text-anchor") {
                    Some("start") => x,
                    Some("end") => x - w,
                    _ => x - w / 2.0,
                };
                (left, left + w, label)
            })
            .collect();
        assert!(ticks.len() >= 4, "{ticks:?}");
        for w in ticks.windows(2) {
            assert!(w[0].1 + 4.0 <= w[1].0, "tick labels collide: {ticks:?}");
        }
        // A narrower plot, where the old one-per-40-px rule kept all nine
        // of 10 MB .. 5 GB and 100 MB and 200 MB overlapped by 1.6 px.
        let scale = Scale::new(&c);
        let (x, plot_w) = (|v: f64| scale.fraction(v).unwrap() * 380.0, 380.0);
        let spans: Vec<(f64, f64, String)> = scale
            .ticks(plot_w, Unit::Kb)
            .into_iter()
            .map(|(v, l)| {
                let w = text_width(&l, SMALL_FONT);
                (x(v) - w / 2.0, x(v) + w / 2.0, l)
            })
            .collect();
        assert!(spans.len() >= 3, "{spans:?}");
        for w in spans.windows(2) {
            assert!(w[0].1 + 4.0 <= w[1].0, "tick labels collide: {spans:?}");
        }
        assert_eq!(format_unit(1020.0 * 1024.0, Unit::Kb), "1020 MB");
        assert_eq!(format_unit(1024.0 * 1024.0, Unit::Kb), "1 GB");
        assert_eq!(format_unit(512.0 * 1024.0, Unit::Kb), "512 MB");
    }

    /// At every plot width a RAM axis from 10 MB to 6 GB labels 1 GB
    /// (issue #40: left to right, 500 MB once took its place) and, from
    /// 300 px, 100 MB; no two labels collide and they stay in order.
    #[test]
    fn ram_ticks_keep_the_units_first() {
        let rows = vec![
            ("small", vec![bar(10_300.0)]),
            ("big", vec![bar(6_260_000.0)]),
        ];
        let mut c = chart(true, &[], rows);
        c.unit = Unit::Kb;
        let scale = Scale::new(&c);
        let mut left_to_right_dropped_1_gb = false;
        for plot_w in (160..=900).step_by(10).map(f64::from) {
            let ticks = scale.ticks(plot_w, Unit::Kb);
            let labels: Vec<&str> = ticks.iter().map(|t| t.1.as_str()).collect();
            assert!(labels.contains(&"1 GB"), "{plot_w} px: {labels:?}");
            if plot_w >= 300.0 {
                assert!(labels.contains(&"100 MB"), "{plot_w} px: {labels:?}");
            }
            assert!(ticks.windows(2).all(|w| w[0].0 < w[1].0), "{labels:?}");
            let x = |v: f64| scale.fraction(v).unwrap() * plot_w;
            for w in ticks.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                let right = (x(a.0) - text_width(&a.1, SMALL_FONT) / 2.0).max(0.0)
                    + text_width(&a.1, SMALL_FONT);
                let left = x(b.0) - text_width(&b.1, SMALL_FONT) / 2.0;
                assert!(right + TICK_GAP <= left + 1e-9, "{plot_w} px: {labels:?}");
                assert!(x(b.0) - x(a.0) >= 40.0 - 1e-9, "{plot_w} px: {labels:?}");
            }
            // What one pass left to right over the same candidates keeps.
            let mut right = f64::NEG_INFINITY;
            let mut greedy = Vec::new();
            for (v, l) in scale.candidate_ticks(plot_w, Unit::Kb) {
                let w = text_width(&l, SMALL_FONT);
                let left = (x(v) - w / 2.0).max(0.0);
                if left >= right + TICK_GAP {
                    right = left + w;
                    greedy.push(l);
                }
            }
            left_to_right_dropped_1_gb |= !greedy.iter().any(|l| l == "1 GB");
        }
        // The case this guards: somewhere left to right loses 1 GB.
        assert!(left_to_right_dropped_1_gb);
    }

    #[test]
    fn compact_values() {
        let cases = [
            (0.0512, "0.0512"),
            (0.05, "0.05"),
            (1.234, "1.23"),
            (12.34, "12.3"),
            (800.0, "800"),
            (999.96, "1k"),
            (3_000.0, "3k"),
            (3_050.0, "3.05k"),
            (600_000.0, "600k"),
            (2_454_660.0, "2.45M"),
            (13_000_000.0, "13M"),
            (0.0, "0"),
            (-1.5, "-1.5"),
        ];
        for (v, want) in cases {
            assert_eq!(format_value(v), want, "{v}");
        }
    }

    #[test]
    fn wraps_long_captions() {
        let text = "word ".repeat(100);
        let lines = wrap(&text, 300.0, SMALL_FONT);
        assert!(lines.len() > 5);
        assert!(lines.iter().all(|l| text_width(l, SMALL_FONT) <= 300.0));
    }

    /// Writes sample charts for a look in a browser:
    /// `LANGBENCH_SVG_SAMPLES=/tmp cargo test --lib export::svg -- --ignored`.
    #[test]
    #[ignore]
    fn write_samples() {
        let dir = std::env::var("LANGBENCH_SVG_SAMPLES").unwrap_or_else(|_| "/tmp".into());
        let mut forty = chart(
            false,
            &["1000 ms", "100 ms", "10 ms"],
            (0..40)
                .map(|i| {
                    let v = 600_000.0 / (1.0 + i as f64 * 0.7);
                    let bars = match i % 9 {
                        3 => vec![bar(v), failed("not run"), flagged(v * 0.4, "partial")],
                        _ => vec![bar(v), bar(v * 0.8), bar(v * 0.55)],
                    };
                    ("ws server", bars)
                })
                .collect(),
        );
        forty.axis = "requests per second".into();
        forty.caption = "Each phase sends messages with the given delay between them; a partial \
            bar is a phase cut short by errors, a missing one a phase that was not run because \
            the server had already failed an earlier one. Higher is better."
            .into();
        for (name, c) in [
            ("sixty", sixty_rows()),
            ("three", three_series_sample()),
            ("forty", forty),
        ] {
            std::fs::write(format!("{dir}/chart-{name}.svg"), render(&c)).unwrap();
        }
    }
}
