//! The ws-echo charts: echoes per second and p99 latency per server and
//! delay phase (`langbench_document::export::svg` draws them). A phase without a figure
//! is a labelled gap, a phase with errors or a saturated client a marked
//! bar.

use crate::ws_record::{Phase, WsRecord, WsStatus};
use langbench_document::{Bar, BarChart, BarRow, Mark, Unit};

/// rps and p99 latency per server and phase.
pub(super) fn ws(records: &[&WsRecord]) -> Vec<BarChart> {
    if records.is_empty() {
        return Vec::new();
    }
    let mut delays: Vec<f64> = Vec::new();
    for r in records {
        for p in &r.phases {
            if !delays.contains(&p.delay_ms) {
                delays.push(p.delay_ms);
            }
        }
    }
    let chart =
        |id: &str, title: &str, axis: &str, pick: &dyn Fn(&Phase) -> Option<f64>| BarChart {
            id: id.into(),
            title: title.into(),
            axis: axis.into(),
            log: true,
            series: delays.iter().map(|d| format!("{d} ms")).collect(),
            rows: records
                .iter()
                .map(|r| BarRow {
                    label: format!("{} · {} ({})", r.language, r.library, r.variant),
                    bars: delays
                        .iter()
                        .map(|d| match r.phases.iter().find(|p| p.delay_ms == *d) {
                            None => Bar {
                                value: None,
                                mark: Mark::Failed,
                                label: Some(r.status.name().to_uppercase()),
                                ..Default::default()
                            },
                            Some(p) => match pick(p) {
                                None => Bar {
                                    value: None,
                                    mark: Mark::Failed,
                                    label: Some(if p.stats.is_some() {
                                        "not published".into()
                                    } else {
                                        p.status.name().to_uppercase()
                                    }),
                                    ..Default::default()
                                },
                                Some(v) if p.status == WsStatus::Ok && !p.client_bound => {
                                    Bar::plain(v)
                                }
                                Some(v) => Bar {
                                    value: Some(v),
                                    mark: Mark::Flagged,
                                    label: Some(if p.client_bound {
                                        "client-bound".into()
                                    } else {
                                        p.status.name().into()
                                    }),
                                    ..Default::default()
                                },
                            },
                        })
                        .collect(),
                })
                .collect(),
            caption: "One bar per delay phase. Marked bars had errors or a saturated client; \
                      labelled gaps have no figure."
                .into(),
            unit: Unit::Plain,
        };
    vec![
        chart(
            "ws-rps",
            "WebSocket echoes per second, per server and delay phase",
            "echoes/s (log scale)",
            &|p| p.stats.as_ref().map(|s| s.rps),
        ),
        chart(
            "ws-p99",
            "WebSocket p99 latency (ms), per server and delay phase",
            "ms (log scale)",
            &|p| p.stats.as_ref().and_then(|s| s.latency_p99_ms),
        ),
    ]
}
