"""The measuring stage: the fold loops of the measuring commands `train`, `calibrate` and `ablation` (the labelled
inputs, the rule ablation, the cross-encoder reader, fusion with a reader and the readers' calibration); each takes
plain arguments and returns its figures, and the commands print them. The lab (`lab/`, outside the package)
builds on it; nothing here imports the lab."""
