describe pod nvidia-device-plugin-daemonset-5mxk8 -n gpu-operator
