//! h264enc: encode YUV/Y4M files to H.264 through a stateless encoder.

fn main() {
    eprintln!("h264enc: the encoder is not implemented yet (see issue 6)");
    std::process::exit(2);
}
