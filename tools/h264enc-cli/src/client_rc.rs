//! Client-driven rate control: the QP of every frame chosen in userspace and
//! sent in the frame's request (`V4L2_H264_ENCODE_RC_FLAG_QP`), by the core's
//! frame controller run here, or by another program (`--client-rc-exec`).
//!
//! The other program is a coprocess that speaks JSON lines: h264enc writes
//! one configuration line (`{"width":W,"height":H,"fps":F,"bitrate":B,
//! "cpb_bits":C}`), then for each frame a request (`{"frame":N,"intra":BOOL}`)
//! to which the program answers with the QP on a line of its own (0 to 51),
//! and once the frame is coded its result (`{"frame":N,"type":"I"|"P",
//! "bits":BITS,"qp":AVERAGE_QP}`). `scripts/rc-compare.py` runs its
//! controllers this way.

use h264enc::rc::frame::{FrameRc, FrameRcConfig};
use h264enc::rc::{FrameInfo, FrameResult, RateController};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// What the client's rate control aims at.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub width: u32,
    pub height: u32,
    pub fps_num: u32,
    pub fps_den: u32,
    /// Average bit rate, bits/s.
    pub bitrate: u64,
    /// Peak bit rate, bits/s.
    pub peak: u64,
    /// CPB size, bits.
    pub cpb_bits: u64,
    /// Constant bit rate (else VBR).
    pub cbr: bool,
    pub qp_min: u8,
    pub qp_max: u8,
}

/// A rate controller on the client's side.
pub enum ClientRc {
    /// The core's frame controller.
    Core(Box<FrameRc>),
    /// Another program, as a coprocess.
    Exec(Coprocess),
}

impl ClientRc {
    /// The core's frame controller for `t`.
    pub fn core(t: &Target) -> Result<ClientRc, String> {
        FrameRc::new(
            FrameRcConfig {
                bitrate: t.bitrate as u32,
                max_bitrate: t.peak as u32,
                cpb_size: t.cpb_bits as u32,
                fps_num: t.fps_num,
                fps_den: t.fps_den,
                cbr: t.cbr,
                filler: false,
                qp_min: t.qp_min,
                qp_max: t.qp_max,
                max_qp_step: 4,
                pixels: t.width * t.height,
                temporal_layers: 1,
                layer_share_q16: [0; 3],
            },
            192,
        )
        .map(|rc| ClientRc::Core(Box::new(rc)))
        .map_err(|e| format!("client rate control: {}", e.name()))
    }

    /// The QP of frame `index` and the bits it aims at (0 when the
    /// controller does not say).
    pub fn plan(&mut self, index: u64, intra: bool) -> Result<(u8, u32), String> {
        match self {
            ClientRc::Core(c) => {
                let p = c.plan(&FrameInfo {
                    intra,
                    ..Default::default()
                });
                // A client sets a whole QP per picture and no in-frame
                // control: a fractional QP is rounded.
                let up = p.fraction_q8.is_some_and(|f| f >= 128);
                Ok((p.qp.saturating_add(u8::from(up)), p.target_bits))
            }
            ClientRc::Exec(c) => c.plan(index, intra).map(|qp| (qp, 0)),
        }
    }

    /// Tells the controller what frame `index` became.
    pub fn complete(
        &mut self,
        index: u64,
        intra: bool,
        bits: u32,
        qp_avg_q8: u32,
        mbs: u32,
    ) -> Result<(), String> {
        match self {
            ClientRc::Core(c) => {
                c.complete(&FrameResult {
                    intra,
                    bits,
                    qp_avg_q8,
                    mbs,
                });
                Ok(())
            }
            ClientRc::Exec(c) => c.complete(index, intra, bits, qp_avg_q8),
        }
    }
}

/// A rate controller in another program.
pub struct Coprocess {
    command: String,
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Coprocess {
    /// Starts `command` with the shell and sends it the configuration.
    pub fn spawn(command: &str, t: &Target) -> Result<Coprocess, String> {
        let mut child = Command::new("sh")
            .args(["-c", command])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("--client-rc-exec: cannot run '{command}': {e}"))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(format!("--client-rc-exec: '{command}' has no pipes"));
        };
        let mut c = Coprocess {
            command: command.to_string(),
            child,
            input,
            output: BufReader::new(output),
        };
        let fps = f64::from(t.fps_num) / f64::from(t.fps_den.max(1));
        c.send(&format!(
            "{{\"width\":{},\"height\":{},\"fps\":{fps},\"bitrate\":{},\"cpb_bits\":{}}}",
            t.width, t.height, t.bitrate, t.cpb_bits
        ))?;
        Ok(c)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.input, "{line}")
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("--client-rc-exec: '{}' stopped reading: {e}", self.command))
    }

    fn plan(&mut self, index: u64, intra: bool) -> Result<u8, String> {
        self.send(&format!("{{\"frame\":{index},\"intra\":{intra}}}"))?;
        let mut line = String::new();
        let n = self
            .output
            .read_line(&mut line)
            .map_err(|e| format!("--client-rc-exec: '{}': {e}", self.command))?;
        if n == 0 {
            return Err(format!(
                "--client-rc-exec: '{}' ended without the QP of frame {index}",
                self.command
            ));
        }
        match line.trim().parse::<u8>() {
            Ok(qp) if qp <= 51 => Ok(qp),
            _ => Err(format!(
                "--client-rc-exec: '{}' answered '{}' for frame {index}, not a QP from 0 to 51",
                self.command,
                line.trim()
            )),
        }
    }

    fn complete(
        &mut self,
        index: u64,
        intra: bool,
        bits: u32,
        qp_avg_q8: u32,
    ) -> Result<(), String> {
        self.send(&format!(
            "{{\"frame\":{index},\"type\":\"{}\",\"bits\":{bits},\"qp\":{:.3}}}",
            if intra { "I" } else { "P" },
            f64::from(qp_avg_q8) / 256.0
        ))
    }
}

impl Drop for Coprocess {
    fn drop(&mut self) {
        // The run is over: the controller has nothing left to decide.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
