package verbs

// Closed reports whether the MR was deregistered, by Close, Destroy, or a
// Close of its PD or context.
func (mr *MR) Closed() bool { return mr.obj.isClosed() }

// Closed reports whether the address handle was destroyed.
func (ah *AH) Closed() bool { return ah.obj.isClosed() }

// Closed reports whether the SRQ was destroyed.
func (s *SRQ) Closed() bool { return s.obj.isClosed() }

// Closed reports whether the memory window was deallocated.
func (mw *MW) Closed() bool { return mw.obj.isClosed() }
