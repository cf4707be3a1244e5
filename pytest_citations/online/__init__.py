"""The online check (``citations check --online``): the URLs that artifacts cite, fetched politely
and checked against the live web. Nothing here is imported by an offline run."""
