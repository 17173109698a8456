"""The live scoreboard: Django project settings and the app around the ``sinuca`` rules engine."""
