// Package oob is the out-of-band exchange two RDMA programs use to find
// each other before their QPs can talk: each side sends its LID, QP
// number, first PSN and GID over a TCP connection, in the wire format of
// rdma-core's ibv_rc_pingpong (libibverbs/examples/rc_pingpong.c and
// pingpong.c), so a verbscope QP can be connected to the real tool, or to
// another verbscope on a second host.
//
// The exchange, as the C tool does it: the client connects and writes its
// address as one 52-byte message ("LLLL:QQQQQQ:PPPPPP:" and 32 hex digits
// of GID, NUL-terminated); the server reads it, moves its QP to RTR and
// RTS, answers with its own message, and the client ends with "done"
// (five bytes with the NUL). Dial is the client; Listen and Accept the
// server. Both honour their context: its deadline bounds the exchange
// and cancelling it closes the connection.
//
// The package is pure Go and knows nothing of verbs; Dest carries plain
// numbers and the GID's 16 bytes.
package oob
