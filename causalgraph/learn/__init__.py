"""Stage 7, learn: the edge scorer (a scikit-learn estimator), the pair model, and grouped-by-topic
cross-validation of the whole path."""
