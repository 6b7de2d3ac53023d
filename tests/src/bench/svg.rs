//! One family's chart as SVG, drawn with plotters (SVG backend only): cycles per byte (ns per byte where the
//! clock was not calibrated) against message size, both on base-2 log scales, one line per contender (ours solid,
//! peers dashed), a legend, a title naming the family and the machine, and a footnote naming the peers that
//! were missing (n/a).

use super::{Family, Machine};
use plotters::prelude::*;

/// Chart size in pixels.
const SIZE: (u32, u32) = (960, 600);

/// The value plotted for a point: c/B, or ns/B without a calibrated clock.
fn y_of(p: &super::Point) -> f64 {
    p.cpb.unwrap_or(1e3 / p.mbs)
}

/// A log axis range around `lo..hi` with a little room on either side.
fn padded(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && lo > 0.0 { (lo, hi.max(lo * 1.01)) } else { (0.1, 100.0) };
    lo / 1.25..hi * 1.25
}

/// A tick label: up to three decimals, trailing zeros dropped (0.125, 0.5, 2, 16).
fn short(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The family's chart as an SVG document.
pub fn family_svg(family: &Family, machine: &Machine) -> Result<String, String> {
    let mut out = String::new();
    draw(family, machine, &mut out).map_err(|e| format!("drawing {}: {e}", family.name))?;
    Ok(out)
}

fn draw(family: &Family, machine: &Machine, out: &mut String) -> Result<(), Box<dyn std::error::Error>> {
    let points = family.series.iter().flat_map(|s| &s.points);
    let (xlo, xhi) = points.clone().fold((f64::MAX, 0f64), |(a, b), p| (a.min(p.size as f64), b.max(p.size as f64)));
    let (ylo, yhi) = points.map(y_of).fold((f64::MAX, 0f64), |(a, b), y| (a.min(y), b.max(y)));
    let unit = if machine.ghz.is_some() { "cycles per byte" } else { "ns per byte" };
    let root = SVGBackend::with_string(out, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, foot) = root.split_vertically(SIZE.1 - 22);
    if !family.missing.is_empty() {
        let names: Vec<&str> = family.missing.iter().map(|m| m.split(':').next().unwrap_or(m)).collect();
        let note = format!("not measured (n/a): {}", names.join("; "));
        foot.draw(&Text::new(note, (12, 4), ("sans-serif", 12).into_font().color(&BLACK)))?;
    }
    let title = format!("{}: {unit} (lower is better) - {}", family.name, machine.describe());
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(padded(xlo, xhi).log_scale().base(2.0), padded(ylo, yhi).log_scale().base(2.0))?;
    chart
        .configure_mesh()
        .x_desc("message size (bytes)")
        .y_desc(unit)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| short(*y))
        .draw()?;
    for (i, s) in family.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let style = ShapeStyle::from(color).stroke_width(if s.ours { 2 } else { 1 });
        let line: Vec<(f64, f64)> = s.points.iter().map(|p| (p.size as f64, y_of(p))).collect();
        let label = if s.ours { s.contender.clone() } else { format!("{} (peer)", s.contender) };
        let series = if s.ours {
            chart.draw_series(LineSeries::new(line.clone(), style))?
        } else {
            chart.draw_series(DashedLineSeries::new(line.clone(), 6, 4, style))?
        };
        series.label(label).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        chart.draw_series(line.into_iter().map(|xy| Circle::new(xy, 2, style.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()?;
    root.present()?;
    Ok(())
}
