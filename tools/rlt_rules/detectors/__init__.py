"""The detectors: what one is (:mod:`.model`, under the library's model), how it matches code
in process (:mod:`.detect`), and how a detector's cost grows with a file's size
(:mod:`.growth`). A detector itself is written in its rule's record; how detectors match goes
here. The checks of the rules' detectors are the library's
(:mod:`rlt_rules.library.detector_checks`, :mod:`rlt_rules.library.detector_cost`). Imports
nothing else of rlt_rules.
"""
