//! Reading source frames: YUV4MPEG2 (size, rate and colour format from its
//! header: 4:2:0, or 4:2:2 given to the device as YUYV) or raw I420, NV12,
//! YUYV, UYVY or RGB with the size given on the command line.

use h264enc_client::device::PixelFormat;
use std::io::{BufRead, BufReader, Read};

/// Geometry and rate of a source.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    pub width: u32,
    pub height: u32,
    pub fps_num: u32,
    pub fps_den: u32,
    pub layout: PixelFormat,
}

impl Format {
    /// Bytes of one frame.
    pub fn frame_len(&self) -> usize {
        self.layout.frame_len(self.width, self.height)
    }
}

/// A source of frames.
pub struct Source {
    pub format: Format,
    reader: Box<dyn BufRead>,
    y4m: bool,
    /// Y4M 4:2:2: planar in the file, packed as YUYV for the device.
    planar_422: Option<Vec<u8>>,
    /// Frames read so far.
    pub frames: u64,
    name: String,
}

/// Opens `path` ("-" for stdin). Raw input needs `size` and `fps`.
pub fn open(
    path: &str,
    size: Option<(u32, u32)>,
    fps: Option<(u32, u32)>,
    layout: PixelFormat,
) -> Result<Source, String> {
    let reader: Box<dyn BufRead> = if path == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let f = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
        Box::new(BufReader::with_capacity(1 << 20, f))
    };
    let y4m = path.ends_with(".y4m") || (path == "-" && size.is_none());
    let mut src = Source {
        format: Format {
            width: 0,
            height: 0,
            fps_num: 30,
            fps_den: 1,
            layout,
        },
        reader,
        y4m,
        planar_422: None,
        frames: 0,
        name: path.to_string(),
    };
    if y4m {
        src.read_y4m_header()?;
    } else {
        let (w, h) =
            size.ok_or_else(|| format!("{path}: raw input needs --size WxH (or use a .y4m file)"))?;
        src.format.width = w;
        src.format.height = h;
        if let Some((n, d)) = fps {
            src.format.fps_num = n;
            src.format.fps_den = d;
        }
        if w % 2 != 0 || h % 2 != 0 {
            return Err(format!(
                "{path}: {w}x{h} is odd; 4:2:0 needs even dimensions"
            ));
        }
        if path != "-" {
            let len = std::fs::metadata(path)
                .map_err(|e| format!("{path}: {e}"))?
                .len();
            let fl = src.format.frame_len() as u64;
            if fl == 0 {
                return Err(format!("{path}: zero frame size"));
            }
            if len % fl != 0 {
                return Err(format!(
                    "{path}: {len} bytes is not a whole number of {w}x{h} frames ({fl} bytes each): {} bytes left over",
                    len % fl
                ));
            }
        }
    }
    if let Some((n, d)) = fps {
        src.format.fps_num = n;
        src.format.fps_den = d;
    }
    if src.format.width == 0 || src.format.height == 0 {
        return Err(format!("{path}: zero width or height"));
    }
    if !src.format.width.is_multiple_of(2) || !src.format.height.is_multiple_of(2) {
        return Err(format!(
            "{path}: {}x{} is odd; 4:2:0 needs even dimensions",
            src.format.width, src.format.height
        ));
    }
    if src.format.fps_num == 0 || src.format.fps_den == 0 {
        return Err(format!(
            "{path}: frame rate {}/{} is not valid",
            src.format.fps_num, src.format.fps_den
        ));
    }
    Ok(src)
}

impl Source {
    fn read_y4m_header(&mut self) -> Result<(), String> {
        let mut line = Vec::new();
        self.reader
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{}: {e}", self.name))?;
        let text = String::from_utf8_lossy(&line);
        let mut words = text.split_whitespace();
        if words.next() != Some("YUV4MPEG2") {
            return Err(format!(
                "{}: not a YUV4MPEG2 file (raw input needs --size and a name not ending in .y4m)",
                self.name
            ));
        }
        for w in words {
            let (tag, val) = w.split_at(1);
            match tag {
                "W" => {
                    self.format.width = val
                        .parse()
                        .map_err(|_| format!("{}: bad width '{val}'", self.name))?
                }
                "H" => {
                    self.format.height = val
                        .parse()
                        .map_err(|_| format!("{}: bad height '{val}'", self.name))?
                }
                "F" => {
                    let (n, d) = val
                        .split_once(':')
                        .ok_or_else(|| format!("{}: bad frame rate '{val}'", self.name))?;
                    self.format.fps_num = n
                        .parse()
                        .map_err(|_| format!("{}: bad frame rate '{val}'", self.name))?;
                    self.format.fps_den = d
                        .parse()
                        .map_err(|_| format!("{}: bad frame rate '{val}'", self.name))?;
                }
                "I" if val != "p" && val != "?" => {
                    return Err(format!(
                        "{}: interlaced input ({val}) is not supported",
                        self.name
                    ))
                }
                "C" if val == "422" => self.planar_422 = Some(Vec::new()),
                "C" if !val.starts_with("420") => {
                    return Err(format!(
                        "{}: colour format C{val} is not supported, only 4:2:0 and 4:2:2 8-bit",
                        self.name
                    ))
                }
                _ => {}
            }
        }
        self.format.layout = if self.planar_422.is_some() {
            PixelFormat::Yuyv
        } else {
            PixelFormat::I420
        };
        Ok(())
    }

    /// Reads the next frame into `buf`; Ok(false) at the end of the input.
    pub fn read_frame(&mut self, buf: &mut Vec<u8>) -> Result<bool, String> {
        let fl = self.format.frame_len();
        buf.resize(fl, 0);
        if self.y4m {
            let mut line = Vec::new();
            let n = self
                .reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("{}: {e}", self.name))?;
            if n == 0 {
                return Ok(false);
            }
            if !line.starts_with(b"FRAME") {
                return Err(format!(
                    "{}: frame {} has no FRAME header",
                    self.name, self.frames
                ));
            }
        }
        // Planar 4:2:2 is read whole, then packed into `buf`.
        let dst = match self.planar_422.as_mut() {
            Some(p) => {
                p.resize(fl, 0);
                p
            }
            None => &mut *buf,
        };
        let mut got = 0;
        while got < fl {
            let n = self
                .reader
                .read(&mut dst[got..])
                .map_err(|e| format!("{}: {e}", self.name))?;
            if n == 0 {
                break;
            }
            got += n;
        }
        if let Some(p) = &self.planar_422 {
            if got == fl {
                pack_422(p, buf);
            }
        }
        if got == 0 && !self.y4m {
            return Ok(false);
        }
        if got < fl {
            return Err(format!(
                "{}: frame {} is truncated: {got} of {fl} bytes",
                self.name, self.frames
            ));
        }
        self.frames += 1;
        Ok(true)
    }
}

/// Packs a planar 4:2:2 frame (Y, then Cb and Cr of half the width) into
/// YUYV: with an even width, sample pair k of the whole frame is Cb and Cr
/// sample k, row after row.
fn pack_422(planar: &[u8], out: &mut [u8]) {
    let luma = planar.len() / 2;
    let (y, c) = planar.split_at(luma);
    let (cb, cr) = c.split_at(luma / 2);
    for (((o, y), b), r) in out
        .chunks_exact_mut(4)
        .zip(y.chunks_exact(2))
        .zip(cb)
        .zip(cr)
    {
        o.copy_from_slice(&[y[0], *b, y[1], *r]);
    }
}
