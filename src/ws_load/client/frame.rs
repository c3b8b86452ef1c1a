//! The frame codec (RFC 6455 §5, client side): masked `hello <n>` frames
//! built in place, and frames parsed from the front of a read buffer.
//! Hand-written: see the module above for why.

pub(super) const OP_CONT: u8 = 0x0;
pub(super) const OP_TEXT: u8 = 0x1;
pub(super) const OP_BIN: u8 = 0x2;
pub(super) const OP_CLOSE: u8 = 0x8;
pub(super) const OP_PING: u8 = 0x9;
pub(super) const OP_PONG: u8 = 0xA;

/// The largest message the client takes, one frame or a fragmented
/// message reassembled: the benchmark's are `hello <n>`, at most 26
/// bytes, and a control frame's payload is at most 125 (RFC 6455 §5.5).
/// A larger one closes its connection with an error: a server streaming
/// one endless fragmented message grew langbench to 1.5 GB (issue #59,
/// row 2).
pub(super) const MAX_MESSAGE: usize = 64 * 1024;

/// The error of a message (or frame) of `len` bytes.
pub(super) fn too_long(len: u64) -> String {
    format!(
        "a message of over {} KiB from the server ({len} bytes; the benchmark's are under 32), \
         the connection closed",
        MAX_MESSAGE / 1024
    )
}

/// Writes `hello <n>` into `out` as a masked client frame; returns its
/// length. Built in place: no allocation.
pub(super) fn build_frame(out: &mut [u8; 64], opcode: u8, payload: &[u8], mask: [u8; 4]) -> usize {
    out[0] = 0x80 | opcode;
    out[1] = 0x80 | payload.len() as u8;
    out[2..6].copy_from_slice(&mask);
    for (i, b) in payload.iter().enumerate() {
        out[6 + i] = b ^ mask[i & 3];
    }
    6 + payload.len()
}

/// `hello <n>` into `buf`; returns its length.
pub(super) fn hello(buf: &mut [u8; 32], n: u64) -> usize {
    buf[..6].copy_from_slice(b"hello ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let d = &digits[i..];
    buf[6..6 + d.len()].copy_from_slice(d);
    6 + d.len()
}

/// `hello <m>` with m < n: the late echo of a message already counted lost.
pub(super) fn is_stale(payload: &[u8], n: u64) -> bool {
    std::str::from_utf8(payload)
        .ok()
        .and_then(|s| s.strip_prefix("hello "))
        .and_then(|m| m.parse::<u64>().ok())
        .is_some_and(|m| m < n)
}

/// One frame parsed from the front of `buf`: (fin, opcode, payload range,
/// frame length), `Ok(None)` when incomplete.
/// (fin, opcode, payload range, frame length).
pub(super) type Frame = (bool, u8, std::ops::Range<usize>, usize);

pub(super) fn parse_frame(buf: &[u8]) -> Result<Option<Frame>, String> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let fin = buf[0] & 0x80 != 0;
    let opcode = buf[0] & 0x0F;
    if buf[0] & 0x70 != 0 {
        return Err("frame with reserved bits set".into());
    }
    if buf[1] & 0x80 != 0 {
        return Err("the server masked a frame".into());
    }
    let (len, head) = match buf[1] & 0x7F {
        126 => {
            if buf.len() < 4 {
                return Ok(None);
            }
            (u16::from_be_bytes([buf[2], buf[3]]) as usize, 4)
        }
        127 => {
            if buf.len() < 10 {
                return Ok(None);
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[2..10]);
            let len = u64::from_be_bytes(b);
            if len > MAX_MESSAGE as u64 {
                return Err(too_long(len));
            }
            (len as usize, 10)
        }
        l => (l as usize, 2),
    };
    if len > MAX_MESSAGE {
        return Err(too_long(len as u64));
    }
    if opcode >= 0x8 && len > 125 {
        return Err(format!(
            "a control frame of {len} bytes (RFC 6455 allows 125)"
        ));
    }
    if buf.len() < head + len {
        return Ok(None);
    }
    Ok(Some((fin, opcode, head..head + len, head + len)))
}
