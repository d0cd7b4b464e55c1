//! Software model of the Hantro H1 H.264 encoder core.
