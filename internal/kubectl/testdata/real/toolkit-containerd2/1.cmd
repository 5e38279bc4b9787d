get pods -n assist
