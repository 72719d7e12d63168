//! Math from IEEE basic operations only (`+ - * /`, `sqrt`, `floor`), so that results are
//! identical on every platform: the standard library's `exp`, `sin` and `atan` may differ in
//! the last bit from one libm to another.

pub const PI: f64 = std::f64::consts::PI;
const LN2: f64 = std::f64::consts::LN_2;

pub fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let k = (x / LN2 + 0.5).floor();
    let r = x - k * LN2;
    let mut term = 1.0;
    let mut sum = 1.0;
    for i in 1..=22 {
        term = term * r / i as f64;
        sum += term;
    }
    sum * f64::from_bits(((k as i64 + 1023) as u64) << 52)
}

/// sin and cos of x.
pub fn sincos(x: f64) -> (f64, f64) {
    let q = (x / (PI / 2.0) + 0.5).floor();
    let r = x - q * (PI / 2.0);
    let r2 = r * r;
    // Taylor series on |r| <= pi/4
    let mut s = r;
    let mut c = 1.0;
    let mut ts = r;
    let mut tc = 1.0;
    for i in 1..=11 {
        let n = 2 * i;
        ts = -ts * r2 / ((n * (n + 1)) as f64);
        tc = -tc * r2 / (((n - 1) * n) as f64);
        s += ts;
        c += tc;
    }
    match (q as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}
pub fn sin(x: f64) -> f64 {
    sincos(x).0
}
pub fn cos(x: f64) -> f64 {
    sincos(x).1
}

pub fn atan(x: f64) -> f64 {
    if x < 0.0 {
        return -atan(-x);
    }
    if x > 1.0 {
        return PI / 2.0 - atan(1.0 / x);
    }
    // halve the argument three times: atan(x) = 2 atan(x / (1 + sqrt(1 + x^2)))
    let mut y = x;
    for _ in 0..3 {
        y /= 1.0 + (1.0 + y * y).sqrt();
    }
    let y2 = y * y;
    let mut term = y;
    let mut sum = y;
    for i in 1..=14 {
        term = -term * y2;
        sum += term / (2 * i + 1) as f64;
    }
    sum * 8.0
}

pub fn atan2(y: f64, x: f64) -> f64 {
    if x > 0.0 {
        atan(y / x)
    } else if x < 0.0 {
        if y >= 0.0 {
            atan(y / x) + PI
        } else {
            atan(y / x) - PI
        }
    } else if y > 0.0 {
        PI / 2.0
    } else if y < 0.0 {
        -PI / 2.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_math() {
        for i in -200..200 {
            let x = i as f64 * 0.0371;
            assert!((exp(x) - x.exp()).abs() <= 1e-14 * x.exp(), "exp {x}");
            assert!((sin(x) - x.sin()).abs() < 1e-14, "sin {x}");
            assert!((cos(x) - x.cos()).abs() < 1e-14, "cos {x}");
            assert!((atan(x) - x.atan()).abs() < 1e-14, "atan {x}");
            assert!(
                (atan2(x, 0.3 - x) - x.atan2(0.3 - x)).abs() < 1e-14,
                "atan2 {x}"
            );
        }
    }
}
