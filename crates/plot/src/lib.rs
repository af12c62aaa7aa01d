//! # modelopt-plot
//!
//! Charts of [`modelopt_optimizer::sweep`] rows, drawn the way the seeds draw their figures:
//!
//! - **latency** (or throughput) against threads — or against the message size on a log₂ axis —
//!   one line per algorithm (or per machine), the best-case (min) model as the line and the
//!   min-max range as a shaded band;
//! - **optimal parameters** (d, k_i, m, r, k, ...) against the same axis, the way seed 000's
//!   Appendix B tables would look as a picture;
//! - **measured box plots over the predicted band** ([`render_boxes`]): what `modelopt validate`
//!   draws, as seed 001 Fig. 3 does.
//!
//! SVG and PNG. Text is drawn with plotters' `ab_glyph` renderer and the embedded Open Sans font
//! (`assets/`, Apache-2.0), so no system font library is needed to build or to draw; PNGs are
//! encoded with the `png` crate.
//!
//! ```
//! use modelopt_model::{machine, Collective};
//! use modelopt_optimizer::sweep::Sweep;
//! use modelopt_plot::{render, Chart, ImageFormat};
//! let phi = machine::load("xeon-phi").unwrap();
//! let sweep = Sweep::new(vec![&phi], vec![Collective::Barrier], (2..=16).collect()).unwrap();
//! let rows: Vec<_> = sweep.rows().collect();
//! let svg = render(&rows, &Chart::default(), ImageFormat::Svg).unwrap();
//! assert!(svg.starts_with(b"<svg"));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod boxes;
mod glyphs;

pub use boxes::{render_boxes, write_boxes, BoxChart, BoxItem};

use modelopt_model::{Metric, Params};
use modelopt_optimizer::sweep::Row;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

/// The embedded font (Open Sans Regular, Apache-2.0; see `assets/README.md`).
pub const FONT: &[u8] = include_bytes!("../assets/OpenSans-Regular.ttf");

const FAMILY: &str = "sans-serif";

/// Why a chart could not be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// Nothing to draw.
    #[error("nothing to plot: {0}")]
    NoData(String),
    /// The file name does not say SVG or PNG.
    #[error("cannot tell the image format of `{0}` (use a .svg or .png file name)")]
    UnknownFormat(String),
    /// The chart cannot show these rows as asked.
    #[error("{0}")]
    Unsupported(String),
    /// Drawing failed.
    #[error("cannot draw the chart: {0}")]
    Draw(String),
    /// Encoding the PNG failed.
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
    /// Writing the file failed.
    #[error("cannot write {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Scalable vector graphics (text).
    Svg,
    /// Portable network graphics (bitmap).
    Png,
}

impl ImageFormat {
    /// The format a file name asks for, by its extension (`.svg`, `.png`, any case).
    pub fn from_path(path: &Path) -> Result<Self, PlotError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(ImageFormat::Svg),
            Some("png") => Ok(ImageFormat::Png),
            _ => Err(PlotError::UnknownFormat(path.display().to_string())),
        }
    }
}

/// Which lines a chart draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lines {
    /// One line per algorithm (and per machine, state, ... when those vary): a sweep.
    #[default]
    PerAlgorithm,
    /// Only the best algorithm at each point, one line per machine (and per other varying
    /// dimension): a comparison.
    Winners,
}

/// How to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Title; a default one is built from the rows when `None`.
    pub title: Option<String>,
    /// Which lines.
    pub lines: Lines,
    /// Latency (lines at the min model, min-max band) or throughput.
    pub metric: Metric,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Default for Chart {
    fn default() -> Self {
        Chart {
            title: None,
            lines: Lines::PerAlgorithm,
            metric: Metric::Latency,
            width: 1200,
            height: 900,
        }
    }
}

/// Draw `rows` into an image in memory: SVG text or PNG bytes.
pub fn render(rows: &[Row], chart: &Chart, format: ImageFormat) -> Result<Vec<u8>, PlotError> {
    register_font()?;
    let model = Model::new(rows, chart)?;
    let size = (chart.width.max(400), chart.height.max(300));
    match format {
        ImageFormat::Svg => {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
                draw(&root, &model)?;
                root.present().map_err(draw_err)?;
            }
            Ok(text.into_bytes())
        }
        ImageFormat::Png => {
            let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
            {
                let font = ab_glyph::FontRef::try_from_slice(FONT)
                    .map_err(|e| PlotError::Draw(format!("the embedded font: {e}")))?;
                let bitmap = BitMapBackend::with_buffer(&mut pixels, size);
                let root = glyphs::GlyphBackend::new(bitmap, font).into_drawing_area();
                draw(&root, &model)?;
                root.present().map_err(draw_err)?;
            }
            encode_png(&pixels, size)
        }
    }
}

/// Draw `rows` into a file whose extension says the format. (The file is written directly;
/// callers that need all-or-nothing writes use [`render`] and write the bytes themselves.)
pub fn write(rows: &[Row], chart: &Chart, path: &Path) -> Result<(), PlotError> {
    let format = ImageFormat::from_path(path)?;
    let bytes = render(rows, chart, format)?;
    std::fs::write(path, bytes).map_err(|e| PlotError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

fn register_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PlotError::Draw("the embedded font cannot be read".into()))
    }
}

fn draw_err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError::Draw(e.to_string())
}

fn encode_png(pixels: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>, PlotError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        let mut writer = encoder
            .write_header()
            .map_err(|e| PlotError::Encode(e.to_string()))?;
        writer
            .write_image_data(pixels)
            .map_err(|e| PlotError::Encode(e.to_string()))?;
        writer
            .finish()
            .map_err(|e| PlotError::Encode(e.to_string()))?;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The chart's data, independent of the backend.

/// Tableau 10: distinguishable, and readable on white.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0xba, 0xb0, 0xac),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum XAxis {
    Threads,
    Size,
}

#[derive(Debug, Clone)]
struct Point {
    /// Axis coordinate: threads, or log₂ bytes.
    x: f64,
    /// Line value and band, in the axis unit (after scaling and, for a log axis, log₁₀).
    y: f64,
    lo: f64,
    hi: f64,
    params: Params,
    winner: bool,
}

#[derive(Debug, Clone)]
struct Series {
    label: String,
    points: Vec<Point>,
}

#[derive(Debug, Clone)]
struct ParamLine {
    label: String,
    color: RGBColor,
    /// Runs of consecutive points where the parameter exists.
    segments: Vec<Vec<(f64, f64)>>,
}

#[derive(Debug, Clone)]
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    label: String,
    kind: Scale,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    Linear,
    /// Coordinates are log₂ bytes; labels are sizes.
    Log2Bytes,
    /// Coordinates are log₁₀ of the value.
    Log10,
}

/// A linear coordinate with the ticks chosen here (plotters' own f64 coordinate picks decimal
/// ticks, which suit neither log₂ sizes nor log₁₀ values).
#[derive(Debug, Clone)]
struct Coord {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for Coord {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let t = (value - self.lo) / (self.hi - self.lo);
        let px = f64::from(limit.0) + t * f64::from(limit.1 - limit.0);
        px.round().clamp(-1e6, 1e6) as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl Axis {
    fn spec(&self) -> Coord {
        Coord {
            lo: self.lo,
            hi: self.hi,
            ticks: self.ticks.clone(),
        }
    }

    fn format(&self, v: f64) -> String {
        match self.kind {
            Scale::Linear => format_number(v),
            Scale::Log2Bytes => format_bytes(2f64.powf(v)),
            Scale::Log10 => format_number(10f64.powf(v)),
        }
    }
}

struct Model {
    title: String,
    series: Vec<Series>,
    x: Axis,
    y: Axis,
    band: bool,
    params: Vec<ParamLine>,
    params_axis: Option<Axis>,
    show_winners: bool,
}

impl Model {
    fn new(rows: &[Row], chart: &Chart) -> Result<Model, PlotError> {
        let rows: Vec<&Row> = rows
            .iter()
            .filter(|r| chart.lines == Lines::PerAlgorithm || r.winner)
            .filter(|r| chart.metric == Metric::Latency || r.throughput_bytes_per_s.is_some())
            .collect();
        if rows.is_empty() {
            let why = if chart.metric == Metric::Throughput {
                "no row has a throughput (the models of these algorithms give none)"
            } else {
                "the sweep produced no rows"
            };
            return Err(PlotError::NoData(why.into()));
        }
        let distinct = |f: &dyn Fn(&Row) -> String| -> usize {
            rows.iter().map(|r| f(r)).collect::<BTreeSet<_>>().len()
        };
        let machines = distinct(&|r| r.machine.clone());
        let collectives = distinct(&|r| r.collective.to_string());
        let states = distinct(&|r| r.state.to_string());
        let sizes = distinct(&|r| r.size_bytes.to_string());
        let threads = distinct(&|r| r.threads.to_string());
        let x_axis = if sizes > 1 && threads == 1 {
            XAxis::Size
        } else {
            XAxis::Threads
        };
        if x_axis == XAxis::Size && rows.iter().any(|r| r.size_bytes == 0) {
            return Err(PlotError::Unsupported(
                "a size axis is logarithmic: sizes must be at least 1 byte".into(),
            ));
        }

        // Series: rows grouped by everything that varies except the x axis.
        let label = |r: &Row| {
            let mut parts = Vec::new();
            if machines > 1 || chart.lines == Lines::Winners {
                parts.push(r.machine.clone());
            }
            if collectives > 1 {
                parts.push(r.collective.to_string());
            }
            if chart.lines == Lines::PerAlgorithm {
                parts.push(r.algorithm.clone());
            }
            if states > 1 {
                parts.push(format!("buffers {}", r.state));
            }
            if x_axis == XAxis::Threads && sizes > 1 {
                parts.push(size_label(r.size_bytes));
            }
            parts.join(", ")
        };
        let metric = chart.metric;
        let raw = |r: &Row| -> (f64, f64, f64) {
            match metric {
                Metric::Latency => (r.t_min_ns, r.t_min_ns, r.t_max_ns),
                Metric::Throughput => {
                    let t = r.throughput_bytes_per_s.unwrap_or(0.0);
                    (t, t, t)
                }
            }
        };
        let max = rows
            .iter()
            .map(|r| raw(r).2)
            .fold(f64::NEG_INFINITY, f64::max);
        let min = rows
            .iter()
            .map(|r| raw(r).1)
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        let (divisor, unit) = match metric {
            Metric::Latency if max >= 1e7 => (1e6, "ms"),
            Metric::Latency if max >= 1e4 => (1e3, "µs"),
            Metric::Latency => (1.0, "ns"),
            Metric::Throughput if max >= 1e10 => (1e9, "GB/s"),
            Metric::Throughput => (1e6, "MB/s"),
        };
        let log_y = min.is_finite() && min > 0.0 && max / min > 30.0;
        let y_of = |v: f64| {
            let v = v / divisor;
            if log_y {
                v.max(min / divisor).log10()
            } else {
                v
            }
        };

        let mut series: Vec<Series> = Vec::new();
        for r in &rows {
            let name = label(r);
            let (y, lo, hi) = raw(r);
            let point = Point {
                x: match x_axis {
                    XAxis::Threads => f64::from(r.threads),
                    XAxis::Size => (r.size_bytes as f64).log2(),
                },
                y: y_of(y),
                lo: y_of(lo),
                hi: y_of(hi),
                params: r.params.clone(),
                winner: r.winner,
            };
            match series.iter_mut().find(|s| s.label == name) {
                Some(s) => s.points.push(point),
                None => series.push(Series {
                    label: name,
                    points: vec![point],
                }),
            }
        }
        for s in &mut series {
            s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
        }

        let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.x));
        let (x_lo, x_hi) = bounds(xs);
        let x = match x_axis {
            XAxis::Threads => {
                let (lo, hi) = widen(x_lo, x_hi, 1.0);
                Axis {
                    lo,
                    hi,
                    ticks: nice_ticks(lo, hi, 10)
                        .into_iter()
                        .filter(|t| t.fract() == 0.0)
                        .collect(),
                    label: "threads".into(),
                    kind: Scale::Linear,
                }
            }
            XAxis::Size => {
                let (lo, hi) = widen(x_lo, x_hi, 1.0);
                let first = lo.ceil() as i64;
                let last = hi.floor() as i64;
                let step = ((last - first) / 16 + 1).max(1);
                Axis {
                    lo,
                    hi,
                    ticks: (first..=last)
                        .filter(|k| (k - first) % step == 0)
                        .map(|k| k as f64)
                        .collect(),
                    label: "message size [bytes, log scale]".into(),
                    kind: Scale::Log2Bytes,
                }
            }
        };

        let band = metric == Metric::Latency
            && series.iter().any(|s| s.points.iter().any(|p| p.hi > p.lo));
        let ys = series
            .iter()
            .flat_map(|s| s.points.iter().flat_map(|p| [p.lo, p.hi]));
        let (y_lo, y_hi) = bounds(ys);
        let y_label = match metric {
            Metric::Latency => format!("latency [{unit}]"),
            Metric::Throughput => format!("throughput [{unit}]"),
        };
        let y = if log_y {
            let (lo, hi) = (y_lo - 0.05 * (y_hi - y_lo), y_hi + 0.05 * (y_hi - y_lo));
            Axis {
                lo,
                hi,
                ticks: log_ticks(lo, hi),
                label: format!("{y_label}, log scale"),
                kind: Scale::Log10,
            }
        } else {
            let hi = if y_hi > 0.0 { y_hi * 1.06 } else { 1.0 };
            Axis {
                lo: 0.0,
                hi,
                ticks: nice_ticks(0.0, hi, 8),
                label: y_label,
                kind: Scale::Linear,
            }
        };

        // Optimal parameters: one line per (series, parameter name).
        let mut params = Vec::new();
        let mut p_max = 0.0_f64;
        for s in &series {
            let mut names: Vec<String> = Vec::new();
            for p in &s.points {
                for n in p.params.names() {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
            for name in names {
                let mut segments: Vec<Vec<(f64, f64)>> = Vec::new();
                let mut open = false;
                for p in &s.points {
                    match p.params.get(&name) {
                        Some(v) => {
                            let v = v as f64;
                            p_max = p_max.max(v);
                            if !open {
                                segments.push(Vec::new());
                                open = true;
                            }
                            if let Some(seg) = segments.last_mut() {
                                seg.push((p.x, v));
                            }
                        }
                        None => open = false,
                    }
                }
                let short = param_symbol(&name);
                params.push(ParamLine {
                    label: if series.len() > 1 {
                        format!("{short}  ({})", s.label)
                    } else {
                        short
                    },
                    color: color(params.len()),
                    segments,
                });
            }
        }
        let params_axis = (!params.is_empty()).then(|| {
            let hi = (p_max * 1.08).max(p_max + 1.0);
            Axis {
                lo: 0.0,
                hi,
                ticks: nice_ticks(0.0, hi, 6)
                    .into_iter()
                    .filter(|t| t.fract() == 0.0)
                    .collect(),
                label: "value".into(),
                kind: Scale::Linear,
            }
        });

        let title = chart
            .title
            .clone()
            .unwrap_or_else(|| default_title(&rows, chart, x_axis));
        Ok(Model {
            title,
            show_winners: chart.lines == Lines::PerAlgorithm && series.len() > 1,
            series,
            x,
            y,
            band,
            params,
            params_axis,
        })
    }
}

fn default_title(rows: &[&Row], chart: &Chart, x: XAxis) -> String {
    let mut machines: Vec<&str> = Vec::new();
    let mut collectives: Vec<String> = Vec::new();
    for r in rows {
        if !machines.contains(&r.machine.as_str()) {
            machines.push(&r.machine);
        }
        let c = r.collective.to_string();
        if !collectives.contains(&c) {
            collectives.push(c);
        }
    }
    let what = match chart.metric {
        Metric::Latency => "latency",
        Metric::Throughput => "throughput",
    };
    let against = match x {
        XAxis::Threads => {
            let sizes: BTreeSet<u64> = rows.iter().map(|r| r.size_bytes).collect();
            match sizes.iter().next() {
                Some(&s) if sizes.len() == 1 => format!("threads ({})", size_label(s)),
                _ => "threads".into(),
            }
        }
        XAxis::Size => format!("message size ({} threads)", rows[0].threads),
    };
    let lines = match chart.lines {
        Lines::PerAlgorithm => "",
        Lines::Winners => ", best algorithm",
    };
    format!(
        "{} on {}: {what} vs {against}{lines}",
        collectives.join(", "),
        machines.join(", ")
    )
}

fn size_label(bytes: u64) -> String {
    if bytes == 0 {
        "one item".into()
    } else {
        format_bytes(bytes as f64)
    }
}

/// `depth` → `d`, `degree` → `m`, `rounds` → `r`, `k1` → `k1`: the seeds' symbols.
fn param_symbol(name: &str) -> String {
    match name {
        "depth" => "d (depth)".into(),
        "degree" => "m (degree)".into(),
        "rounds" => "r (rounds)".into(),
        other => other.to_string(),
    }
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
}

fn widen(lo: f64, hi: f64, by: f64) -> (f64, f64) {
    if !lo.is_finite() || !hi.is_finite() {
        (0.0, 1.0)
    } else if hi > lo {
        (lo, hi)
    } else {
        (lo - by, hi + by)
    }
}

/// Round ticks (1, 2, 5 × 10^k apart) covering [lo, hi], about `target` of them.
fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Ticks of a log₁₀ axis: decades, with 2× and 5× when the axis spans few decades.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let first = lo.floor() as i64;
    let last = hi.ceil() as i64;
    let fine = last - first <= 4;
    let mut ticks = Vec::new();
    for d in first..=last {
        let mults: &[f64] = if fine { &[1.0, 2.0, 5.0] } else { &[1.0] };
        for m in mults {
            let t = d as f64 + m.log10();
            if t >= lo && t <= hi {
                ticks.push(t);
            }
        }
    }
    ticks
}

fn format_number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 || (a - a.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        let text = if a >= 1.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.2}")
        };
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn format_bytes(b: f64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in units {
        let size = size as f64;
        if b >= size {
            let v = b / size;
            return if (v - v.round()).abs() < 1e-9 {
                format!("{v:.0} {unit}")
            } else {
                format!("{v:.1} {unit}")
            };
        }
    }
    format!("{b:.0} B")
}

// ---------------------------------------------------------------------------------------------
// Drawing.

const LEGEND_WIDTH: u32 = 300;

fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, model: &Model) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let (w, h) = root.dim_in_pixel();
    let body = root.titled(&model.title, font(24)).map_err(draw_err)?;
    let body_h = h.saturating_sub(40);
    let (top, bottom) = if model.params_axis.is_some() {
        let split = body_h * 3 / 5;
        let (a, b) = body.split_vertically(split);
        (a, Some(b))
    } else {
        (body, None)
    };
    let plot_w = w.saturating_sub(LEGEND_WIDTH);

    let (plot, legend) = top.split_horizontally(plot_w);
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .caption(
            if model.band {
                "line: best case (min model); band: min-max range"
            } else {
                "performance"
            },
            font(17),
        )
        .build_cartesian_2d(model.x.spec(), model.y.spec())
        .map_err(draw_err)?;
    configure(&mut chart, &model.x, &model.y)?;
    for (i, s) in model.series.iter().enumerate() {
        let c = color(i);
        if model.band {
            let mut polygon: Vec<(f64, f64)> = s.points.iter().map(|p| (p.x, p.hi)).collect();
            polygon.extend(s.points.iter().rev().map(|p| (p.x, p.lo)));
            if s.points.len() > 1 {
                chart
                    .draw_series(std::iter::once(Polygon::new(polygon, c.mix(0.18).filled())))
                    .map_err(draw_err)?;
            }
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().map(|p| (p.x, p.hi)),
                    c.mix(0.55).stroke_width(1),
                ))
                .map_err(draw_err)?;
        }
        // Earlier series are drawn wider, so that identical lines (e.g. a Cell chip and a Cell
        // blade up to 8 SPEs) stay visible as a colored core inside a colored border.
        let width = (2 + (model.series.len() - 1 - i) as u32).min(8);
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|p| (p.x, p.y)),
                c.stroke_width(width.max(3)),
            ))
            .map_err(draw_err)?;
        let marks = s
            .points
            .iter()
            .filter(|p| s.points.len() == 1 || (model.show_winners && p.winner));
        chart
            .draw_series(marks.map(|p| Circle::new((p.x, p.y), 4, c.filled())))
            .map_err(draw_err)?;
    }
    let mut entries: Vec<LegendEntry> = model
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| LegendEntry {
            label: s.label.clone(),
            color: color(i),
            band: model.band,
            dot: false,
        })
        .collect();
    if model.show_winners {
        entries.push(LegendEntry {
            label: "best algorithm at that point".into(),
            color: RGBColor(90, 90, 90),
            band: false,
            dot: true,
        });
    }
    draw_legend(&legend, &entries)?;

    if let (Some(bottom), Some(axis)) = (bottom, &model.params_axis) {
        let (plot, legend) = bottom.split_horizontally(plot_w);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .caption("optimal parameters of each line above", font(17))
            .build_cartesian_2d(model.x.spec(), axis.spec())
            .map_err(draw_err)?;
        configure(&mut chart, &model.x, axis)?;
        // Earlier lines are drawn wider, so that equal values (k1 = k2, ...) stay visible as a
        // colored core inside a colored border.
        let points = model
            .series
            .iter()
            .map(|s| s.points.len())
            .max()
            .unwrap_or(0);
        let count = model.params.len() as u32;
        for (i, line) in model.params.iter().enumerate() {
            let width = 2 + 2 * (count - 1 - i as u32).min(3);
            for seg in &line.segments {
                chart
                    .draw_series(LineSeries::new(
                        seg.iter().copied(),
                        line.color.stroke_width(width),
                    ))
                    .map_err(draw_err)?;
                if points <= 40 {
                    chart
                        .draw_series(
                            seg.iter()
                                .map(|&(x, y)| Circle::new((x, y), 3, line.color.filled())),
                        )
                        .map_err(draw_err)?;
                }
            }
        }
        let entries: Vec<LegendEntry> = model
            .params
            .iter()
            .map(|p| LegendEntry {
                label: p.label.clone(),
                color: p.color,
                band: false,
                dot: false,
            })
            .collect();
        draw_legend(&legend, &entries)?;
    }
    Ok(())
}

type Chart2d<'a, 'b, DB> = ChartContext<'a, DB, Cartesian2d<Coord, Coord>>;

fn configure<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, '_, DB>,
    x: &Axis,
    y: &Axis,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let fx = |v: &f64| x.format(*v);
    let fy = |v: &f64| y.format(*v);
    chart
        .configure_mesh()
        .x_desc(x.label.as_str())
        .y_desc(y.label.as_str())
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .label_style(font(15))
        .axis_desc_style(font(17))
        .bold_line_style(BLACK.mix(0.12))
        .axis_style(BLACK.mix(0.8))
        .draw()
        .map_err(draw_err)
}

struct LegendEntry {
    label: String,
    color: RGBColor,
    band: bool,
    dot: bool,
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let row = 26;
    let top = 40;
    for (i, e) in entries.iter().enumerate() {
        let y = top + row * i as i32;
        if y + row > area.dim_in_pixel().1 as i32 {
            let more = format!("… and {} more", entries.len() - i);
            area.draw(&Text::new(more, (10, y), font(15)))
                .map_err(draw_err)?;
            break;
        }
        let mid = y + 9;
        if e.band {
            area.draw(&Rectangle::new(
                [(8, mid - 8), (48, mid + 8)],
                e.color.mix(0.18).filled(),
            ))
            .map_err(draw_err)?;
        }
        if e.dot {
            area.draw(&Circle::new((28, mid), 4, e.color.filled()))
                .map_err(draw_err)?;
        } else {
            area.draw(&PathElement::new(
                vec![(8, mid), (48, mid)],
                e.color.stroke_width(3),
            ))
            .map_err(draw_err)?;
        }
        area.draw(&Text::new(e.label.clone(), (56, y), font(15)))
            .map_err(draw_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_bytes(32.0), "32 B");
        assert_eq!(format_bytes(1024.0), "1 KiB");
        assert_eq!(format_bytes(1536.0), "1.5 KiB");
        assert_eq!(format_bytes(1048576.0), "1 MiB");
        assert_eq!(format_number(2500.0), "2500");
        assert_eq!(format_number(2.5), "2.5");
        assert_eq!(format_number(0.25), "0.25");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(format_number(0.1), "0.1");
        assert_eq!(
            nice_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(log_ticks(2.0, 3.0).len(), 4);
    }

    #[test]
    fn formats_from_file_names() {
        assert_eq!(
            ImageFormat::from_path(Path::new("a.SVG")),
            Ok(ImageFormat::Svg)
        );
        assert_eq!(
            ImageFormat::from_path(Path::new("d/a.png")),
            Ok(ImageFormat::Png)
        );
        assert!(ImageFormat::from_path(Path::new("a.pdf")).is_err());
        assert!(ImageFormat::from_path(Path::new("a")).is_err());
    }
}
