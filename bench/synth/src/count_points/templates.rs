//! The seed's flow and hourly templates by road class, made ready for the model: flows brought
//! back to their 2019 level, hourly counts turned into shares of the day.

use crate::model::count_point::Shape;
use crate::model::trend::Trend;
use crate::road_class::CLASSES;
use crate::seed::Seed;
use crate::vehicles::{motor_vehicles, NV};

/// The seed's templates by road class ([`CLASSES`]).
pub struct Templates {
    /// How the vehicles of a day's count spread over its hours.
    pub shapes: [Vec<Shape>; 4],
    /// Vehicle flows (AADF) at their 2019 level.
    pub flows: [Vec<[f64; NV]>; 4],
}

impl Templates {
    /// None if a road class has no template of either kind.
    pub fn from_seed(seed: &Seed, trends: &[Trend; NV]) -> Option<Templates> {
        let templates = Templates {
            shapes: hourly_shapes(seed),
            flows: base_flows(seed, trends),
        };
        let complete = templates.shapes.iter().all(|s| !s.is_empty())
            && templates.flows.iter().all(|f| !f.is_empty());
        complete.then_some(templates)
    }
}

/// Each hourly template as the share of each vehicle's day in each hour (the motor vehicles'
/// shares where a vehicle is too rare to have its own).
fn hourly_shapes(seed: &Seed) -> [Vec<Shape>; 4] {
    let motor_vehicles = motor_vehicles();
    let mut shapes: [Vec<Shape>; 4] = Default::default();
    for template in &seed.hourly {
        let Some(ci) = CLASSES.iter().position(|c| *c == template.class) else {
            continue;
        };
        let hours = &template.hours;
        let motor: Vec<f64> = hours
            .iter()
            .map(|h| motor_sum(h, &motor_vehicles))
            .collect();
        let motor_total: f64 = motor.iter().sum();
        if motor_total <= 0.0 {
            continue;
        }
        let mut shape = [[0f64; NV]; 12];
        for k in 0..NV {
            let col: f64 = hours.iter().map(|h| h[k]).sum();
            for h in 0..12 {
                shape[h][k] = if col >= 12.0 {
                    hours[h][k] / col
                } else {
                    motor[h] / motor_total
                };
            }
        }
        shapes[ci].push(shape);
    }
    shapes
}

/// The count of the motor vehicles in an hour of a template.
fn motor_sum(hour: &[f64], motor_vehicles: &[bool; NV]) -> f64 {
    let motor = hour.iter().zip(motor_vehicles).filter(|(_, motor)| **motor);
    motor.map(|(count, _)| count).sum()
}

/// Each flow template brought back to its 2019 level by the national trends.
fn base_flows(seed: &Seed, trends: &[Trend; NV]) -> [Vec<[f64; NV]>; 4] {
    let mut flows: [Vec<[f64; NV]>; 4] = Default::default();
    for f in &seed.flows {
        let Some(ci) = CLASSES.iter().position(|c| *c == f.class) else {
            continue;
        };
        let aadf = &f.aadf;
        let mut b = [0f64; NV];
        for k in 0..NV {
            b[k] = aadf[k].max(0.0) / trends[k].at(f.year);
        }
        flows[ci].push(b);
    }
    flows
}
