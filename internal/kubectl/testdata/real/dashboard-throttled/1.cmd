get pods -n homepage
