"""`webclient check`: drives an agent headless through the situations the prompt-suggestions RFD rules
about, and reports each Agent rule a client can observe (PASS, FAIL or NOT OBSERVED), with the wire
lines that prove it. A client of the same protocol layer (`webclient.acp`) the page uses."""
