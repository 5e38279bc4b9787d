get events -n notebooks
