//! Measured box plots over the predicted band (`modelopt validate --plot`, issue 9) are written
//! as real SVG and PNG files.

use modelopt_plot::{render_boxes, write_boxes, BoxChart, BoxItem, ImageFormat, PlotError};

fn item(group: &str, label: &str, band: Option<(f64, f64)>, base: f64) -> BoxItem {
    BoxItem {
        group: group.into(),
        label: label.into(),
        band,
        min: base,
        p5: base + 10.0,
        p25: base + 20.0,
        median: base + 30.0,
        p75: base + 40.0,
        p95: base + 60.0,
    }
}

fn items() -> Vec<BoxItem> {
    vec![
        item("n = 2", "optimal", Some((150.0, 400.0)), 200.0),
        item("n = 2", "binomial", None, 250.0),
        item("n = 4", "optimal", Some((300.0, 900.0)), 500.0),
        item("n = 4", "flat", Some((350.0, 1100.0)), 700.0),
        item("n = 4", "binomial", None, 650.0),
    ]
}

#[test]
fn box_plot_over_band_writes_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("validate.svg");
    let png = dir.path().join("validate.png");
    write_boxes(&items(), &BoxChart::default(), &svg).unwrap();
    write_boxes(&items(), &BoxChart::default(), &png).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    // The largest value is T_max = 1100 ns > 1000: the axis is in µs. Group labels under the
    // boxes, one legend entry per candidate, the caption explaining the glyphs.
    for needle in [
        "latency [µs]",
        "n = 2",
        "n = 4",
        "optimal",
        "flat",
        "binomial",
        "whiskers: p5-p95",
    ] {
        assert!(text.contains(needle), "missing {needle:?}");
    }
    // Light rectangles at 18 % opacity: one band per priced item (3 of 5) and one legend swatch
    // per distinct candidate (optimal, binomial, flat: 3).
    assert_eq!(text.matches("opacity=\"0.18\"").count(), 3 + 3);
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(bytes.len() > 10_000, "{} bytes", bytes.len());
}

#[test]
fn box_plot_refuses_what_it_cannot_draw() {
    assert!(matches!(
        render_boxes(&[], &BoxChart::default(), ImageFormat::Svg),
        Err(PlotError::NoData(_))
    ));
    let mut bad = items();
    bad[0].median = f64::NAN;
    assert!(matches!(
        render_boxes(&bad, &BoxChart::default(), ImageFormat::Svg),
        Err(PlotError::Unsupported(_))
    ));
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        write_boxes(&items(), &BoxChart::default(), &dir.path().join("x.gif")),
        Err(PlotError::UnknownFormat(_))
    ));
}

#[test]
fn a_long_tail_switches_to_a_log_axis_in_the_unit_of_the_typical_value() {
    // Smallest value T_min = 214.6 ns, largest p95 = 18 ms: 18e6 / 214.6 ≈ 84 000 > 20, so the
    // axis is log₁₀, and its unit follows the smallest value (214.6 ns → ns), not the tail.
    let mut tail = item("n = 2", "optimal", Some((214.6, 354.6)), 1200.0);
    tail.p95 = 18.0e6;
    let svg = render_boxes(&[tail], &BoxChart::default(), ImageFormat::Svg).unwrap();
    let text = String::from_utf8(svg).unwrap();
    assert!(text.contains("latency [ns, log scale]"));
    // The band is drawn (below the box: the model is faster than this machine).
    assert_eq!(text.matches("opacity=\"0.18\"").count(), 1 + 1);
}
