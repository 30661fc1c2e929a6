graph():
    # param conv.weight : float32[4, 3, 3, 3]
    # param bn.weight : float32[4]
    # param bn.bias : float32[4]
    # param bn.running_mean : float32[4]
    # param bn.running_var : float32[4]
    %x : [num_users=1] = placeholder[target=x]  # float32[1, 3, 8, 8]
    %conv_weight : [num_users=1] = get_attr[target=conv.weight]
    %conv : [num_users=1] = call_function[target=conv](args = (%x, %conv_weight), kwargs = {pads: [1, 1, 1, 1]})
    %bn_weight : [num_users=1] = get_attr[target=bn.weight]
    %bn_bias : [num_users=1] = get_attr[target=bn.bias]
    %bn_mean : [num_users=1] = get_attr[target=bn.running_mean]
    %bn_var_raw : [num_users=1] = get_attr[target=bn.running_var]
    %bn_var : [num_users=1] = call_function[target=identity](args = (%bn_var_raw,), kwargs = {})
    %bn : [num_users=1] = call_function[target=batch_normalization](args = (%conv, %bn_weight, %bn_bias, %bn_mean, %bn_var), kwargs = {})
    return bn
