get pods -n gpu-operator -o wide
