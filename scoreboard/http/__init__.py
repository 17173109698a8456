"""HTTP and ASGI plumbing shared by the pages and the API: the client's address and the origin
check (``clients``), the read slots, writer gate, rate limits and busy answers (``capacity``),
and the one mapping from the engine's and the core's refusals to HTTP answers (``errors``).

It sits above ``core`` (it uses its limits and refusals) and beside ``live`` and ``reports``,
below the pages and the API that use it."""
