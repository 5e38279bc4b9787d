get pods -n gpu-operator
