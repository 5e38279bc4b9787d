get daemonsets -n gpu-operator
