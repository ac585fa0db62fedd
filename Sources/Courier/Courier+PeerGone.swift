// The relay's `peer-gone` for a host ends the requests waiting on it (`Reply.hostGone`), so the
// caller falls back at once instead of waiting out a watchdog rung. It is handled on the link's
// thread (`PeerLink.onPeerGone`, wired in `Courier.init`), in order with the live outcomes: only
// requests whose outcome already said they reached the relay are ended; a notice heard before
// that is about an earlier departure (a Homebase that restarted), not about the request.
