graph():
    # param fc.weight : float32[8, 8]
    # param fc.bias : float32[8]
    # param /Constant_1_output_0 : int64[]
    # param /Constant_output_0 : bool[]
    # param onnx::Loop_3 : float32[8]
    # param /Constant_4_output_0 : float32[]
    %input_0 : [num_users=1] = placeholder[target=input_0]  # float32[6, 8]
    %fc_weight : [num_users=1] = get_attr[target=fc.weight]  # float32[8, 8]
    %fc_bias : [num_users=1] = get_attr[target=fc.bias]  # float32[8]
    %_fc_Gemm_output_0 : [num_users=1] = call_function[target=gemm](args = (%input_0, %fc_weight, %fc_bias), kwargs = {alpha: 1.0, beta: 1.0, transB: 1})  # float32[6, 8]
    %_Constant_1_output_0 : [num_users=1] = get_attr[target=/Constant_1_output_0]  # int64[]
    %_Constant_output_0 : [num_users=1] = get_attr[target=/Constant_output_0]  # bool[]
    %onnx__Loop_3 : [num_users=1] = get_attr[target=onnx::Loop_3]  # float32[8]
    %output_1 : [num_users=3] = call_function[target=loop](args = (%_Constant_1_output_0, %_Constant_output_0, %onnx__Loop_3, %_fc_Gemm_output_0, %_Constant_output_0), kwargs = {body: graph, captures: 2})  # float32[8]
        body = graph():
            # param /Constant_2_output_0 : float32[]
            %i_1 : [num_users=2] = placeholder[target=i_1]  # int64[]
            %cond : [num_users=0] = placeholder[target=cond]  # bool[]
            %acc_35 : [num_users=1] = placeholder[target=acc_35]  # float32[8]
            %_fc_Gemm_output_0 : [num_users=1] = placeholder[target=_fc_Gemm_output_0]  # float32[6, 8]
            %_Constant_output_0 : [num_users=1] = placeholder[target=_Constant_output_0]  # bool[]
            %_Gather_output_0 : [num_users=2] = call_function[target=gather](args = (%_fc_Gemm_output_0, %i_1), kwargs = {axis: 0})  # float32[8]
            %_ReduceSum_output_0 : [num_users=1] = call_function[target=reduce_sum](args = (%_Gather_output_0,), kwargs = {keepdims: 0})  # float32[]
            %_Constant_2_output_0 : [num_users=1] = get_attr[target=/Constant_2_output_0]  # float32[]
            %_Greater_output_0 : [num_users=1] = call_function[target=greater](args = (%_ReduceSum_output_0, %_Constant_2_output_0), kwargs = {})  # bool[]
            %_Cast_output_0 : [num_users=1] = call_function[target=cast](args = (%_Greater_output_0,), kwargs = {to: 9})  # bool[]
            %_If_output_0 : [num_users=1] = call_function[target=if](args = (%_Cast_output_0, %_Gather_output_0, %i_1, %acc_35), kwargs = {then_branch: graph, else_branch: graph})  # float32[8]
                then_branch = graph():
                    %_Gather_output_0 : [num_users=1] = placeholder[target=_Gather_output_0]  # float32[8]
                    %i_1 : [num_users=1] = placeholder[target=i_1]  # int64[]
                    %acc_35 : [num_users=1] = placeholder[target=acc_35]  # float32[8]
                    %_Relu_output_0 : [num_users=1] = call_function[target=relu](args = (%_Gather_output_0,), kwargs = {})  # float32[8]
                    %_Cast_1_output_0 : [num_users=1] = call_function[target=cast](args = (%i_1,), kwargs = {to: 1})  # float32[]
                    %_Mul_output_0 : [num_users=1] = call_function[target=mul](args = (%_Relu_output_0, %_Cast_1_output_0), kwargs = {})  # float32[8]
                    %_Add_output_0 : [num_users=1] = call_function[target=add](args = (%acc_35, %_Mul_output_0), kwargs = {})  # float32[8]
                    return _Add_output_0
                else_branch = graph():
                    # param /Constant_3_output_0 : float32[]
                    %_Gather_output_0 : [num_users=1] = placeholder[target=_Gather_output_0]  # float32[8]
                    %i_1 : [num_users=0] = placeholder[target=i_1]  # int64[]
                    %acc_35 : [num_users=1] = placeholder[target=acc_35]  # float32[8]
                    %_Constant_3_output_0 : [num_users=1] = get_attr[target=/Constant_3_output_0]  # float32[]
                    %_Mul_1_output_0 : [num_users=1] = call_function[target=mul](args = (%acc_35, %_Constant_3_output_0), kwargs = {})  # float32[8]
                    %_Sub_output_0 : [num_users=1] = call_function[target=sub](args = (%_Mul_1_output_0, %_Gather_output_0), kwargs = {})  # float32[8]
                    return _Sub_output_0
            %_Identity_output_0 : [num_users=1] = call_function[target=identity](args = (%_Constant_output_0,), kwargs = {})  # bool[]
            return (_Identity_output_0, _If_output_0)
    %_ReduceMean_output_0 : [num_users=1] = call_function[target=reduce_mean](args = (%output_1,), kwargs = {keepdims: 0})  # float32[]
    %_Constant_4_output_0 : [num_users=1] = get_attr[target=/Constant_4_output_0]  # float32[]
    %_Greater_1_output_0 : [num_users=1] = call_function[target=greater](args = (%_ReduceMean_output_0, %_Constant_4_output_0), kwargs = {})  # bool[]
    %_Cast_2_output_0 : [num_users=1] = call_function[target=cast](args = (%_Greater_1_output_0,), kwargs = {to: 9})  # bool[]
    %output_0 : [num_users=1] = call_function[target=if](args = (%_Cast_2_output_0, %output_1), kwargs = {then_branch: graph, else_branch: graph})  # float32[8]
        then_branch = graph():
            %output_1 : [num_users=1] = placeholder[target=output_1]  # float32[8]
            %_Softmax_output_0 : [num_users=1] = call_function[target=softmax](args = (%output_1,), kwargs = {axis: 0})  # float32[8]
            return _Softmax_output_0
        else_branch = graph():
            %output_1 : [num_users=1] = placeholder[target=output_1]  # float32[8]
            %_Neg_output_0 : [num_users=1] = call_function[target=neg](args = (%output_1,), kwargs = {})  # float32[8]
            return _Neg_output_0
    return (output_0, output_1)
