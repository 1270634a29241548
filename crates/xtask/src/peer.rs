//! The real AG-UI peer the browser tests talk to.

use super::*;

/// Where the browser tests reach the real AG-UI peer. Fixed, so that the
/// tests' build does not change from one run to the next.
pub(crate) const AGUI_PEER_PORT: u16 = 47310;

/// The real AG-UI peer (`tests/peers/agui_peer.py`), stopped when dropped.
pub(crate) struct Peer(std::process::Child, u16);

impl Peer {
    /// Starts the peer on `port` (0: a free one) and waits until it listens.
    pub(crate) fn start(port: u16) -> Result<Peer, String> {
        let mut child = Command::new("python3")
            .arg(root().join("tests/peers/agui_peer.py"))
            .arg(port.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|error| format!("could not start the AG-UI peer: {error}"))?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = BufReader::new(stdout).read_line(&mut line);
        }
        let listening = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|n| n.parse::<u16>().ok())
            .filter(|&n| port == 0 || n == port);
        let Some(listening) = listening else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "the AG-UI peer did not listen on 127.0.0.1:{port} (is the port taken?)"
            ));
        };
        Ok(Peer(child, listening))
    }

    /// The URL of one of its scenarios.
    pub(crate) fn url(&self, scenario: &str) -> String {
        format!("http://127.0.0.1:{}/{scenario}", self.1)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
