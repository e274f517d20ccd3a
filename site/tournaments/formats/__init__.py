"""The tournament formats as pure functions of the standings: who meets whom, how points and
tie-breaks are counted. Nothing here imports Django, so the rules are tested with properties
(tests/tournaments/) and measured on their own (bench/tournament_pairing.py); the app around it
(tournaments.services) stores the results and starts the games.

Players are any hashable ids; a game's result is told from the first player's point of view
as 1 (won), 0.5 (drawn: only Colorful Connection has draws) or 0 (lost).

* arena: pairing waves among free players, arena points (streaks, berserk)
* swiss: one round's pairing through a maximum-weight matching (networkx), byes
* roundrobin: Berger tables, single or double
* standings: tie-breaks (Buchholz, Sonneborn-Berger, direct encounter) and the tournament
  performance rating
"""
