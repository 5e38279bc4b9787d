describe pod nvidia-driver-daemonset-cos-6w9lf -n gpu-operator
