"""The course's lessons as models: each lesson's experiments, constants and readout text.

A module here imports the engine and nothing that draws: `frame(**controls)` returns plain
data that a view in `emqsim.figures` draws, the notebook's panel shows, and the static site
renders ahead of time.
"""
