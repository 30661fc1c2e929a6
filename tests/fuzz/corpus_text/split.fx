graph():
    %x : [num_users=1] = placeholder[target=x]  # float32[2, 3]
    %s : [num_users=1] = call_function[target=split](args = (%x,), kwargs = {axis: 1, num_outputs: 3})
    %g : [num_users=1] = call_function[target=getitem](args = (%s, 2), kwargs = {})
    return g
