"""What webclient keeps of a session beyond its life: the entries as stored (`entries`), the keeper that
writes a live session's transcript (`keeper`), the SQLite store (`store`), and the copies a server offers
(`copies`)."""
