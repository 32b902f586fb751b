//! The annotate server's connection handling: one event-loop thread does
//! every read and write without blocking, a fixed pool of workers runs the
//! handler on whole requests.
//!
//! Why not a crate: `tiny_http` (used before) starts a thread per
//! connection and has no header timeout, so slow clients pile up threads;
//! hyper, axum or actix need an async runtime (tokio) and several times
//! this file in dependencies, for a loopback page with one user. `mio`
//! (readiness polling, the base of tokio) plus the few lines of HTTP/1.1 in
//! `http.rs` give exactly what is needed:
//!
//! - a connection costs a buffer, not a thread: the loop reads heads and
//!   bodies as bytes arrive, so any number of slow clients hold no worker;
//! - every phase has a deadline (head, body, writing the reply, draining
//!   what the client still sends), and at most [`Limits::max_connections`]
//!   are open: at the limit the oldest unfinished one is dropped for the
//!   newest, so a flood cannot keep a real request out;
//! - workers see only complete requests, and a panic in the handler is a
//!   500 reply, never a dead worker.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::Shutdown;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};

use super::http::{self, Head, Reply, Request};

/// The server's bounds.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Worker threads running the handler.
    pub workers: usize,
    /// Complete requests waiting for a worker; beyond, 503.
    pub queue: usize,
    /// Open connections, in every phase.
    pub max_connections: usize,
    /// From accepting a connection to the end of its head.
    pub head_timeout: Duration,
    /// From the end of the head to the end of the body.
    pub body_timeout: Duration,
    /// For writing the reply.
    pub write_timeout: Duration,
    /// For reading (and dropping) what the client sends after the reply.
    pub drain_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            workers: 4,
            queue: 64,
            max_connections: 768,
            head_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(2),
        }
    }
}

/// Bytes read and dropped after a reply before the connection is closed.
const MAX_DRAIN: usize = 4 * http::MAX_BODY;
const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
/// The loop wakes at least this often to check deadlines and the stop flag.
const TICK: Duration = Duration::from_millis(50);

/// What a connection is doing.
enum Phase {
    /// Reading the head; `scanned` bytes hold no end of head.
    Head { buf: Vec<u8>, scanned: usize },
    /// Reading the body of `head`.
    Body { head: Head, body: Vec<u8> },
    /// A worker has the request.
    Busy,
    /// Writing `out` from `sent`.
    Write { out: Vec<u8>, sent: usize },
    /// Reply sent and the write side shut: reading until the client closes.
    Drain { dropped: usize },
}

/// One open connection.
struct Conn {
    stream: TcpStream,
    opened: Instant,
    /// When the current phase must be over (none while a worker has it).
    deadline: Option<Instant>,
    phase: Phase,
}

/// A complete request for a worker.
struct Job {
    conn: Token,
    request: Request,
}

/// Serves `listener` with `handler` until `stop` is set. Returns when the
/// event loop fails (the listener or the poller), or on `stop` once the
/// workers have finished their current request.
pub fn serve<H>(
    mut listener: TcpListener,
    limits: Limits,
    handler: H,
    stop: &AtomicBool,
) -> std::io::Result<()>
where
    H: Fn(&Request) -> Reply + Send + Sync + 'static,
{
    let poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(limits.queue.max(1));
    let (done_tx, done_rx) = mpsc::channel::<(Token, Reply)>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let handler = Arc::new(handler);
    let workers: Vec<_> = (0..limits.workers.max(1))
        .map(|_| {
            let (jobs, done, waker, handler) = (
                job_rx.clone(),
                done_tx.clone(),
                waker.clone(),
                handler.clone(),
            );
            std::thread::spawn(move || work(&jobs, &done, &waker, &*handler))
        })
        .collect();
    drop(done_tx);
    let mut event_loop = EventLoop {
        poll,
        listener,
        limits,
        conns: HashMap::new(),
        next: 2,
        jobs: job_tx,
        accept_again: false,
    };
    let result = event_loop.run(&done_rx, stop);
    // Closing the queue lets each worker finish its request and stop.
    drop(event_loop);
    for w in workers {
        let _ = w.join();
    }
    result
}

/// A worker: runs the handler on each request until the queue closes.
fn work<H>(
    jobs: &Mutex<Receiver<Job>>,
    done: &mpsc::Sender<(Token, Reply)>,
    waker: &Waker,
    handler: &H,
) where
    H: Fn(&Request) -> Reply,
{
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(poisoned) => poisoned.into_inner().recv(),
        };
        let Ok(job) = job else { return };
        let reply = catch_unwind(AssertUnwindSafe(|| handler(&job.request)))
            .unwrap_or_else(|_| Reply::error(500, "internal error while answering"));
        if done.send((job.conn, reply)).is_err() {
            return;
        }
        // A failed wake leaves the reply for the next tick.
        let _ = waker.wake();
    }
}

/// The event loop's state.
struct EventLoop {
    poll: Poll,
    listener: TcpListener,
    limits: Limits,
    conns: HashMap<Token, Conn>,
    /// The next connection's token: never reused, so a late reply cannot
    /// reach another connection.
    next: usize,
    jobs: SyncSender<Job>,
    /// Accepting failed (out of file descriptors): try again next tick.
    accept_again: bool,
}

impl EventLoop {
    fn run(&mut self, done: &Receiver<(Token, Reply)>, stop: &AtomicBool) -> std::io::Result<()> {
        let mut events = Events::with_capacity(256);
        let mut last_sweep = Instant::now();
        while !stop.load(Ordering::SeqCst) {
            let tick = if self.accept_again {
                Duration::from_millis(10)
            } else {
                TICK
            };
            if let Err(e) = self.poll.poll(&mut events, Some(tick)) {
                if e.kind() != ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            if std::mem::take(&mut self.accept_again) {
                self.accept();
            }
            for event in events.iter() {
                match event.token() {
                    LISTENER => self.accept(),
                    WAKER => {}
                    token => self.on_ready(token),
                }
            }
            for (token, reply) in done.try_iter() {
                if matches!(self.conns.get(&token), Some(c) if matches!(c.phase, Phase::Busy)) {
                    self.reply(token, &reply);
                }
            }
            if last_sweep.elapsed() >= TICK {
                last_sweep = Instant::now();
                self.sweep(last_sweep);
            }
        }
        Ok(())
    }

    /// Accepts every waiting connection.
    fn accept(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => self.admit(stream),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    // Out of descriptors or memory: free one and retry soon
                    // (readiness is edge-triggered, no new event would come).
                    self.evict_oldest();
                    self.accept_again = true;
                    return;
                }
            }
        }
    }

    fn admit(&mut self, mut stream: TcpStream) {
        if self.conns.len() >= self.limits.max_connections && !self.evict_oldest() {
            return;
        }
        let token = Token(self.next);
        self.next = self.next.wrapping_add(1).max(2);
        let _ = stream.set_nodelay(true);
        let interest = Interest::READABLE | Interest::WRITABLE;
        if self
            .poll
            .registry()
            .register(&mut stream, token, interest)
            .is_err()
        {
            return;
        }
        let now = Instant::now();
        self.conns.insert(
            token,
            Conn {
                stream,
                opened: now,
                deadline: Some(now + self.limits.head_timeout),
                phase: Phase::Head {
                    buf: Vec::new(),
                    scanned: 0,
                },
            },
        );
        // Data that arrived with the connection gives no later edge.
        self.on_ready(token);
    }

    /// Closes the oldest connection no worker holds; false when none.
    fn evict_oldest(&mut self) -> bool {
        let oldest = self
            .conns
            .iter()
            .filter(|(_, c)| !matches!(c.phase, Phase::Busy))
            .min_by_key(|(_, c)| c.opened)
            .map(|(t, _)| *t);
        oldest.map(|t| self.close(t)).is_some()
    }

    fn close(&mut self, token: Token) {
        if let Some(mut c) = self.conns.remove(&token) {
            let _ = self.poll.registry().deregister(&mut c.stream);
        }
    }

    /// Moves `token`'s connection on as far as its socket allows.
    fn on_ready(&mut self, token: Token) {
        let Some(conn) = self.conns.get_mut(&token) else {
            return;
        };
        match step(conn, &self.limits) {
            Step::Wait => {}
            Step::Close => self.close(token),
            Step::Refuse(reply) => self.reply(token, &reply),
            Step::Dispatch(request) => {
                let job = Job {
                    conn: token,
                    request,
                };
                match self.jobs.try_send(job) {
                    Ok(()) => {
                        if let Some(c) = self.conns.get_mut(&token) {
                            c.phase = Phase::Busy;
                            c.deadline = None;
                        }
                    }
                    Err(TrySendError::Full(_)) => {
                        self.reply(token, &Reply::error(503, "busy, try again"));
                    }
                    Err(TrySendError::Disconnected(_)) => {
                        self.reply(token, &Reply::error(500, "no worker left"));
                    }
                }
            }
        }
    }

    /// Starts writing `reply` on `token`'s connection.
    fn reply(&mut self, token: Token, reply: &Reply) {
        if let Some(c) = self.conns.get_mut(&token) {
            c.phase = Phase::Write {
                out: reply.encode(),
                sent: 0,
            };
            c.deadline = Some(Instant::now() + self.limits.write_timeout);
        }
        self.on_ready(token);
    }

    /// Ends every phase past its deadline: an unfinished request gets 408,
    /// a reply not taken or a client not closing is dropped.
    fn sweep(&mut self, now: Instant) {
        let late: Vec<(Token, bool)> = self
            .conns
            .iter()
            .filter(|(_, c)| c.deadline.is_some_and(|d| d <= now))
            .map(|(t, c)| {
                (
                    *t,
                    matches!(c.phase, Phase::Head { .. } | Phase::Body { .. }),
                )
            })
            .collect();
        for (token, reading) in late {
            if reading {
                self.reply(token, &Reply::error(408, "request not received in time"));
            } else {
                self.close(token);
            }
        }
    }
}

/// What to do with a connection after reading or writing what its socket
/// allows.
enum Step {
    /// Wait for the next readiness event.
    Wait,
    /// Close it.
    Close,
    /// Answer with this reply without running the handler.
    Refuse(Reply),
    /// Hand this complete request to a worker.
    Dispatch(Request),
}

/// Reads or writes on `conn` until the socket would block, the phase ends,
/// or the connection fails.
fn step(conn: &mut Conn, limits: &Limits) -> Step {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match &mut conn.phase {
            Phase::Busy => return Step::Wait,
            Phase::Write { out, sent } => {
                match conn.stream.write(out.get(*sent..).unwrap_or_default()) {
                    Ok(0) => return Step::Close,
                    Ok(n) => *sent += n,
                    Err(e) => match io_step(&e) {
                        Some(s) => return s,
                        None => continue,
                    },
                }
                if *sent >= out.len() {
                    let _ = conn.stream.shutdown(Shutdown::Write);
                    conn.phase = Phase::Drain { dropped: 0 };
                    conn.deadline = Some(Instant::now() + limits.drain_timeout);
                }
            }
            Phase::Drain { dropped } => match conn.stream.read(&mut chunk) {
                Ok(0) => return Step::Close,
                Ok(n) => {
                    *dropped += n;
                    if *dropped > MAX_DRAIN {
                        return Step::Close;
                    }
                }
                Err(e) => match io_step(&e) {
                    Some(s) => return s,
                    None => continue,
                },
            },
            Phase::Head { buf, scanned } => {
                // Read no more than the head may hold (plus one byte to tell).
                let room = (http::MAX_HEAD + 1)
                    .saturating_sub(buf.len())
                    .min(chunk.len());
                let n = match conn.stream.read(&mut chunk[..room]) {
                    Ok(0) => return Step::Close,
                    Ok(n) => n,
                    Err(e) => match io_step(&e) {
                        Some(s) => return s,
                        None => continue,
                    },
                };
                buf.extend_from_slice(&chunk[..n]);
                let Some(end) = http::head_end(buf, *scanned) else {
                    if buf.len() > http::MAX_HEAD {
                        return Step::Refuse(Reply::error(431, "request head too large"));
                    }
                    *scanned = buf.len();
                    continue;
                };
                let head = match http::parse_head(&buf[..end]) {
                    Ok(h) => h,
                    Err(reply) => return Step::Refuse(reply),
                };
                let mut body = buf.split_off(end);
                body.truncate(head.body_len);
                conn.phase = Phase::Body { head, body };
                conn.deadline = Some(Instant::now() + limits.body_timeout);
            }
            Phase::Body { head, body } => {
                if body.len() >= head.body_len {
                    let Phase::Body { head, body } =
                        std::mem::replace(&mut conn.phase, Phase::Busy)
                    else {
                        return Step::Close;
                    };
                    return Step::Dispatch(Request { head, body });
                }
                let room = (head.body_len - body.len()).min(chunk.len());
                match conn.stream.read(&mut chunk[..room]) {
                    Ok(0) => return Step::Close,
                    Ok(n) => body.extend_from_slice(&chunk[..n]),
                    Err(e) => match io_step(&e) {
                        Some(s) => return s,
                        None => continue,
                    },
                }
            }
        }
    }
}

/// A socket error's step: wait when it would block, close on a failure,
/// `None` (try again) when a signal interrupted the call.
fn io_step(e: &std::io::Error) -> Option<Step> {
    match e.kind() {
        ErrorKind::WouldBlock => Some(Step::Wait),
        ErrorKind::Interrupted => None,
        _ => Some(Step::Close),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;
    use std::sync::atomic::AtomicBool;

    /// A server answering 200, or panicking on `/panic`, until dropped.
    struct TestServer {
        addr: SocketAddr,
        stop: Arc<AtomicBool>,
        thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    }

    impl TestServer {
        fn start(limits: Limits) -> TestServer {
            let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
            let addr = listener.local_addr().unwrap();
            let stop = Arc::new(AtomicBool::new(false));
            let flag = stop.clone();
            let handler = |r: &Request| {
                assert!(r.head.path != "/panic", "a handler panicked on purpose");
                Reply::error(200, "fine")
            };
            let thread = std::thread::spawn(move || serve(listener, limits, handler, &flag));
            TestServer {
                addr,
                stop,
                thread: Some(thread),
            }
        }

        fn ask(&self, request: &[u8]) -> String {
            let mut s = std::net::TcpStream::connect(self.addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            s.write_all(request).unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            out
        }
    }

    impl Drop for TestServer {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::SeqCst);
            if let Some(t) = self.thread.take() {
                assert!(t.join().unwrap().is_ok());
            }
        }
    }

    #[test]
    fn a_panicking_handler_is_a_500_and_the_server_goes_on() {
        let limits = Limits {
            workers: 2,
            ..Limits::default()
        };
        let s = TestServer::start(limits);
        // More panics than workers: none of them may die.
        for _ in 0..4 {
            let reply = s.ask(b"GET /panic HTTP/1.1\r\nHost: x\r\n\r\n");
            assert!(reply.starts_with("HTTP/1.1 500"), "{reply}");
        }
        let reply = s.ask(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    }

    #[test]
    fn unfinished_or_oversized_requests_are_refused() {
        let limits = Limits {
            head_timeout: Duration::from_millis(200),
            body_timeout: Duration::from_millis(200),
            ..Limits::default()
        };
        let s = TestServer::start(limits);
        let started = Instant::now();
        let reply = s.ask(b"GET / HTTP/1.1\r\nHost: x\r\nX-Half");
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
        let reply = s.ask(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
        assert!(started.elapsed() < Duration::from_secs(3));
        let mut big = b"GET / HTTP/1.1\r\nX: ".to_vec();
        big.resize(http::MAX_HEAD + 10, b'a');
        let reply = s.ask(&big);
        assert!(reply.starts_with("HTTP/1.1 431"), "{reply}");
        let reply = s.ask(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    }
}
