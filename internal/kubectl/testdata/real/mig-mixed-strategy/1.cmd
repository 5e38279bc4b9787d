get pods -n notebooks
