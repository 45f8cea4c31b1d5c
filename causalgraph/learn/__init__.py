"""The learn stage: the edge scorers (scikit-learn estimators) and grouped-by-topic
cross-validation of the whole path."""
