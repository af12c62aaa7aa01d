//! Measured box plots over the predicted min-max band, the way seed 001 Fig. 3 and seed 000
//! Figs. 4.4–4.8 show measurements against a model: one box per candidate, its predicted
//! [T_min, T_max] band shaded behind it, candidates grouped (e.g. by thread count).
//!
//! A box is drawn from the 25th to the 75th percentile with a line at the median; the whiskers
//! go from the 5th to the 95th percentile and a dot marks the minimum. The band is the candidate's
//! color, light, with its T_min edge drawn darker (the best case the optimizer minimizes).
//!
//! The latency axis is linear, or logarithmic (base 10) when the values span more than a factor
//! of 20 — measurements on a loaded machine have a tail (a preempted thread costs milliseconds)
//! that would flatten every box and band on a linear axis.

use super::{color, draw_err, encode_png, font, glyphs, log_ticks, nice_ticks, register_font};
use super::{format_number, Coord, ImageFormat, PlotError, FONT};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One measured candidate and its prediction. Values in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxItem {
    /// The group it belongs to, written under the groups' boxes (e.g. `n = 4`).
    pub group: String,
    /// The candidate, written under its box and in the legend (e.g. `binomial`).
    pub label: String,
    /// The predicted [T_min, T_max], when the model prices it.
    pub band: Option<(f64, f64)>,
    /// Smallest measurement.
    pub min: f64,
    /// 5th percentile: the lower whisker.
    pub p5: f64,
    /// 25th percentile: the box's lower edge.
    pub p25: f64,
    /// Median.
    pub median: f64,
    /// 75th percentile: the box's upper edge.
    pub p75: f64,
    /// 95th percentile: the upper whisker.
    pub p95: f64,
}

/// How to draw a box chart.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxChart {
    /// Title.
    pub title: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Default for BoxChart {
    fn default() -> Self {
        BoxChart {
            title: "measured latency over the predicted min-max band".into(),
            width: 1200,
            height: 900,
        }
    }
}

/// Draw the boxes into an image in memory: SVG text or PNG bytes.
pub fn render_boxes(
    items: &[BoxItem],
    chart: &BoxChart,
    format: ImageFormat,
) -> Result<Vec<u8>, PlotError> {
    register_font()?;
    let model = BoxModel::new(items)?;
    let size = (chart.width.max(400), chart.height.max(300));
    match format {
        ImageFormat::Svg => {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
                draw_boxes(&root, &model, chart)?;
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
                draw_boxes(&root, &model, chart)?;
                root.present().map_err(draw_err)?;
            }
            encode_png(&pixels, size)
        }
    }
}

/// Draw the boxes into a file whose extension (`.svg`, `.png`) says the format.
pub fn write_boxes(items: &[BoxItem], chart: &BoxChart, path: &Path) -> Result<(), PlotError> {
    let format = ImageFormat::from_path(path)?;
    let bytes = render_boxes(items, chart, format)?;
    std::fs::write(path, bytes).map_err(|e| PlotError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// Positions and axis of the boxes, independent of the backend.
struct BoxModel<'a> {
    items: &'a [BoxItem],
    /// x of each item: items are 1 apart, groups 1 further apart.
    x: Vec<f64>,
    /// (group, x of its middle).
    groups: Vec<(String, f64)>,
    /// Distinct labels in first-seen order: the color of a label is its index.
    labels: Vec<String>,
    x_hi: f64,
    /// Axis range and ticks in axis coordinates (log₁₀ of the scaled value on a log axis).
    y_lo: f64,
    y_hi: f64,
    y_ticks: Vec<f64>,
    log: bool,
    /// Divide nanoseconds by this; the axis unit.
    scale: f64,
    unit: &'static str,
}

impl<'a> BoxModel<'a> {
    fn new(items: &'a [BoxItem]) -> Result<Self, PlotError> {
        if items.is_empty() {
            return Err(PlotError::NoData("no measured candidate".into()));
        }
        let mut x = Vec::with_capacity(items.len());
        let mut groups: Vec<(String, f64, f64)> = Vec::new();
        let mut pos = 0.0;
        for item in items {
            match groups.last_mut() {
                Some(g) if g.0 == item.group => {
                    pos += 1.0;
                    g.2 = pos;
                }
                Some(_) => {
                    pos += 2.0;
                    groups.push((item.group.clone(), pos, pos));
                }
                None => {
                    pos = 1.0;
                    groups.push((item.group.clone(), pos, pos));
                }
            }
            x.push(pos);
        }
        let mut labels: Vec<String> = Vec::new();
        for item in items {
            if !labels.contains(&item.label) {
                labels.push(item.label.clone());
            }
        }
        let mut top: f64 = 0.0;
        let mut bottom = f64::INFINITY;
        for item in items {
            let values = [item.min, item.p5, item.p25, item.median, item.p75, item.p95];
            if values.iter().any(|v| !v.is_finite() || *v < 0.0) {
                return Err(PlotError::Unsupported(format!(
                    "{} {}: latencies must be finite and non-negative",
                    item.group, item.label
                )));
            }
            top = top.max(item.p95);
            bottom = bottom.min(item.min);
            if let Some((lo, hi)) = item.band {
                if !(lo.is_finite() && hi.is_finite()) {
                    return Err(PlotError::Unsupported(format!(
                        "{} {}: the predicted band is not finite",
                        item.group, item.label
                    )));
                }
                top = top.max(hi);
                bottom = bottom.min(lo);
            }
        }
        let log = bottom > 0.0 && top / bottom > 20.0;
        // On a log axis the unit follows the typical (smallest) value, not the tail.
        let reference = if log { bottom } else { top };
        let (scale, unit) = if reference >= 1e6 {
            (1e6, "ms")
        } else if reference >= 1e3 {
            (1e3, "µs")
        } else {
            (1.0, "ns")
        };
        let (y_lo, y_hi, y_ticks) = if log {
            let lo = (bottom / scale / 1.25).log10();
            let hi = (top / scale * 1.25).log10();
            (lo, hi, log_ticks(lo, hi))
        } else {
            let hi = if top > 0.0 { top / scale * 1.08 } else { 1.0 };
            (0.0, hi, nice_ticks(0.0, hi, 8))
        };
        Ok(BoxModel {
            items,
            x,
            groups: groups
                .into_iter()
                .map(|(g, a, b)| (g, (a + b) / 2.0))
                .collect(),
            labels,
            x_hi: pos + 1.0,
            y_lo,
            y_hi,
            y_ticks,
            log,
            scale,
            unit,
        })
    }

    /// The axis coordinate of a value in ns.
    fn y(&self, ns: f64) -> f64 {
        let v = ns / self.scale;
        if self.log {
            v.max(1e-12).log10()
        } else {
            v
        }
    }

    /// The label of an axis coordinate.
    fn y_label(&self, y: f64) -> String {
        format_number(if self.log { 10f64.powf(y) } else { y })
    }

    fn color_of(&self, label: &str) -> RGBColor {
        color(self.labels.iter().position(|l| l == label).unwrap_or(0))
    }
}

fn draw_boxes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    model: &BoxModel<'_>,
    chart: &BoxChart,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(draw_err)?;
    let (w, _) = root.dim_in_pixel();
    let body = root.titled(&chart.title, font(24)).map_err(draw_err)?;
    let (plot, legend) = body.split_horizontally(w.saturating_sub(super::LEGEND_WIDTH));
    let group_ticks: Vec<f64> = model.groups.iter().map(|g| g.1).collect();
    let mut cc = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .caption(
            "box: p25-p75, line: median, whiskers: p5-p95, dot: min; band: predicted T_min-T_max",
            font(17),
        )
        .build_cartesian_2d(
            Coord {
                lo: 0.0,
                hi: model.x_hi,
                ticks: group_ticks,
            },
            Coord {
                lo: model.y_lo,
                hi: model.y_hi,
                ticks: model.y_ticks.clone(),
            },
        )
        .map_err(draw_err)?;
    let group_at = |v: &f64| {
        model
            .groups
            .iter()
            .find(|g| (g.1 - *v).abs() < 1e-9)
            .map(|g| g.0.clone())
            .unwrap_or_default()
    };
    let fy = |v: &f64| model.y_label(*v);
    let y_desc = if model.log {
        format!("latency [{}, log scale]", model.unit)
    } else {
        format!("latency [{}]", model.unit)
    };
    cc.configure_mesh()
        .disable_x_mesh()
        .x_desc("")
        .y_desc(y_desc.as_str())
        .x_label_formatter(&group_at)
        .y_label_formatter(&fy)
        .label_style(font(15))
        .axis_desc_style(font(17))
        .bold_line_style(BLACK.mix(0.12))
        .axis_style(BLACK.mix(0.8))
        .draw()
        .map_err(draw_err)?;
    let y = |ns: f64| model.y(ns);
    for (item, &x) in model.items.iter().zip(&model.x) {
        let c = model.color_of(&item.label);
        if let Some((lo, hi)) = item.band {
            cc.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.45, y(lo)), (x + 0.45, y(hi))],
                c.mix(0.18).filled(),
            )))
            .map_err(draw_err)?;
            cc.draw_series(std::iter::once(PathElement::new(
                vec![(x - 0.45, y(lo)), (x + 0.45, y(lo))],
                c.mix(0.8).stroke_width(2),
            )))
            .map_err(draw_err)?;
        }
        // Whiskers p5..p95 with caps.
        cc.draw_series(std::iter::once(PathElement::new(
            vec![(x, y(item.p5)), (x, y(item.p95))],
            BLACK.mix(0.8).stroke_width(1),
        )))
        .map_err(draw_err)?;
        for v in [item.p5, item.p95] {
            cc.draw_series(std::iter::once(PathElement::new(
                vec![(x - 0.12, y(v)), (x + 0.12, y(v))],
                BLACK.mix(0.8).stroke_width(1),
            )))
            .map_err(draw_err)?;
        }
        cc.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.25, y(item.p25)), (x + 0.25, y(item.p75))],
            WHITE.filled(),
        )))
        .map_err(draw_err)?;
        cc.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.25, y(item.p25)), (x + 0.25, y(item.p75))],
            c.stroke_width(2),
        )))
        .map_err(draw_err)?;
        cc.draw_series(std::iter::once(PathElement::new(
            vec![(x - 0.25, y(item.median)), (x + 0.25, y(item.median))],
            c.stroke_width(4),
        )))
        .map_err(draw_err)?;
        cc.draw_series(std::iter::once(Circle::new(
            (x, y(item.min)),
            3,
            c.filled(),
        )))
        .map_err(draw_err)?;
    }
    let entries: Vec<super::LegendEntry> = model
        .labels
        .iter()
        .map(|l| super::LegendEntry {
            label: l.clone(),
            color: model.color_of(l),
            band: true,
            dot: false,
        })
        .collect();
    super::draw_legend(&legend, &entries)
}
