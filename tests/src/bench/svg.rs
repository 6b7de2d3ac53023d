//! One family's chart as SVG, drawn with plotters (SVG backend only): cycles per byte (ns per byte where the
//! clock was not calibrated) against message size, both on base-2 log scales, one line per contender (ours solid,
//! peers dashed), a title naming the family and the machine, and below the plot (so that it hides no line) a
//! legend and the peers that were missing (n/a).

use super::{Family, Machine};
use plotters::prelude::*;

/// Chart width and the plot's height in pixels (the legend below adds a row per contender).
const WIDTH: u32 = 960;
const PLOT_HEIGHT: u32 = 540;
/// A legend row's height.
const ROW: u32 = 18;

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
    let rows = family.series.len() + usize::from(!family.missing.is_empty());
    let height = PLOT_HEIGHT + 10 + ROW * rows as u32;
    let root = SVGBackend::with_string(out, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, foot) = root.split_vertically(PLOT_HEIGHT);
    let title = format!("{}: {unit} (lower is better) - {}", family.name, machine.describe());
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 21))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(padded(xlo, xhi).log_scale().base(2.0), padded(ylo, yhi).log_scale().base(2.0))?;
    chart
        .configure_mesh()
        .max_light_lines(0)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .x_desc("message size (bytes)")
        .y_desc(unit)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| short(*y))
        .draw()?;
    for (i, s) in family.series.iter().enumerate() {
        let style = style_of(i, s.ours);
        let line: Vec<(f64, f64)> = s.points.iter().map(|p| (p.size as f64, y_of(p))).collect();
        if s.ours {
            chart.draw_series(LineSeries::new(line.clone(), style))?;
        } else {
            chart.draw_series(DashedLineSeries::new(line.clone(), 6, 4, style))?;
        }
        chart.draw_series(line.into_iter().map(|xy| Circle::new(xy, 2, style.filled())))?;
    }
    legend(family, &foot)?;
    root.present()?;
    Ok(())
}

/// Contender `i`'s line: its palette colour, ours thicker.
fn style_of(i: usize, ours: bool) -> ShapeStyle {
    ShapeStyle::from(Palette99::pick(i).to_rgba()).stroke_width(if ours { 2 } else { 1 })
}

/// The legend below the chart, one row per contender (a sample of its line, then its name; peers marked), and
/// a last row naming the peers that were missing.
fn legend<DB: DrawingBackend>(family: &Family, area: &DrawingArea<DB, plotters::coord::Shift>) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    for (i, s) in family.series.iter().enumerate() {
        let y = 6 + ROW as i32 * i as i32;
        let style = style_of(i, s.ours);
        let sample = if s.ours { vec![(72, y + 6), (102, y + 6)] } else { vec![(72, y + 6), (82, y + 6)] };
        area.draw(&PathElement::new(sample, style)).map_err(err)?;
        if !s.ours {
            area.draw(&PathElement::new(vec![(88, y + 6), (98, y + 6)], style)).map_err(err)?;
        }
        let label = if s.ours { s.contender.clone() } else { format!("{} (peer)", s.contender) };
        area.draw(&Text::new(label, (110, y), font.clone())).map_err(err)?;
    }
    if !family.missing.is_empty() {
        let names: Vec<&str> = family.missing.iter().map(|m| m.split(':').next().unwrap_or(m)).collect();
        let note = format!("not measured (n/a): {}", names.join("; "));
        let y = 6 + ROW as i32 * family.series.len() as i32;
        area.draw(&Text::new(note, (72, y), font)).map_err(err)?;
    }
    Ok(())
}
