"""Training data out of generated suites: FindingDory SFT rows and LeRobot datasets, checked
against evaluation suites so that no model is trained on days it is scored on."""
