graph():
    # param conv.weight : float32[4, 3, 3, 3]
    # param bn.weight : float32[4]
    # param bn.bias : float32[4]
    # param bn.running_mean : float32[4]
    # param bn.running_var : float32[4]
    # param fc.weight : float32[2, 256]
    # param fc.bias : float32[2]
    # param c1 : float32[2]
    # param c2 : float32[2]
    # param orphan : float32[7]
    %x : [num_users=2] = placeholder[target=x]  # float32[1, 3, 8, 8]
    %unused : [num_users=0] = placeholder[target=unused]  # float32[1, 5]
    %conv_weight : [num_users=1] = get_attr[target=conv.weight]
    %conv : [num_users=1] = call_function[target=conv](args = (%x, %conv_weight), kwargs = {pads: [1, 1, 1, 1]})
    %bn_weight : [num_users=1] = get_attr[target=bn.weight]
    %bn_bias : [num_users=1] = get_attr[target=bn.bias]
    %bn_mean : [num_users=1] = get_attr[target=bn.running_mean]
    %bn_var : [num_users=1] = get_attr[target=bn.running_var]
    %bn : [num_users=1] = call_function[target=batch_normalization](args = (%conv, %bn_weight, %bn_bias, %bn_mean, %bn_var), kwargs = {})
    %relu : [num_users=1] = call_function[target=relu](args = (%bn,), kwargs = {})
    %ident : [num_users=1] = call_function[target=identity](args = (%relu,), kwargs = {})
    %dead : [num_users=0] = call_function[target=sigmoid](args = (%x,), kwargs = {})
    %flat : [num_users=1] = call_function[target=flatten](args = (%ident,), kwargs = {axis: 1})
    %fc_weight : [num_users=1] = get_attr[target=fc.weight]
    %fc_bias : [num_users=1] = get_attr[target=fc.bias]
    %fc : [num_users=1] = call_function[target=gemm](args = (%flat, %fc_weight, %fc_bias), kwargs = {transB: 1})
    %c1 : [num_users=1] = get_attr[target=c1]
    %c2 : [num_users=1] = get_attr[target=c2]
    %cadd : [num_users=1] = call_function[target=add](args = (%c1, %c2), kwargs = {})
    %out : [num_users=1] = call_function[target=add](args = (%fc, %cadd), kwargs = {})
    return out
