//! Charts as standalone SVG.

use super::document::BarChart;

/// The chart as a standalone SVG document.
pub fn render(chart: &BarChart) -> String {
    // Placeholder until the chart renderer lands.
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"40\"><text x=\"4\" y=\"20\">{}</text></svg>\n",
        chart.title.replace('&', "&amp;").replace('<', "&lt;")
    )
}
